using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// Where the game keeps its state: Stellar.Store (<see cref="StellarGameStore"/>) or, as the baseline for the cost
/// of persistence, plain dictionaries (<see cref="MemoryGameStore"/>).
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. Reads never wait for writes. Writes are called on
/// the tick thread and return at once; their tasks complete when the write is stored (as durable as the store's
/// mode promises). Writes to one collection are applied in the order they were called.
/// </remarks>
internal interface IGameStore : IAsyncDisposable
{
    /// <summary>What keeps the state, for the summary.</summary>
    string Description { get; }

    /// <summary>The store directory, or null when nothing is persisted.</summary>
    string? Directory { get; }

    /// <summary>The records the state holds now, over every collection, for the memory figures of the summary.</summary>
    long LiveRecords { get; }

    AccountRecord? GetAccount(string name);

    CharacterRecord? GetCharacter(long id);

    /// <summary>The items whose owner is <paramref name="characterId"/>: a query over the economy.</summary>
    IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId);

    ScoreRecord? GetScore(long characterId);

    ChunkRecord? GetChunk(long id);

    /// <summary>The best <paramref name="count"/> scores, read from one snapshot.</summary>
    IReadOnlyList<ScoreRecord> TopScores(int count);

    /// <summary>The largest id used so far (economy ids and accounts' character ids), to continue the id sequence.</summary>
    long HighestId();

    Task WriteEconomyAsync(EconomyBatch batch);

    Task UpsertAccountAsync(AccountRecord account);

    Task UpsertScoreAsync(ScoreRecord score);

    Task UpsertChunkAsync(ChunkRecord chunk);
}
