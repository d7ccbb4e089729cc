using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// Where the game keeps its state: Stellar.Store (<see cref="StellarGameStore"/>) or, as the baseline for the cost
/// of persistence, plain dictionaries (<see cref="MemoryGameStore"/>).
/// </summary>
/// <remarks>
/// Thread safety: every member may be called from any thread. Reads never wait for writes. Writes are called on
/// the tick thread and return at once; their tasks complete when the write is stored (as durable as the store's
/// mode promises). Units (<see cref="WriteAsync"/>) are applied in the order they were called, and so are the plain
/// writes to one collection; a unit and a plain write are not ordered with each other, so the game never writes a
/// collection both ways at once (see <see cref="UpsertAccountAsync"/>).
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

    PositionRecord? GetPosition(long characterId);

    /// <summary>The items whose owner is <paramref name="characterId"/>: a query over the items.</summary>
    IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId);

    ScoreRecord? GetScore(long characterId);

    ChunkRecord? GetChunk(long id);

    /// <summary>The character's session, or null when there is none or its lease has ended.</summary>
    SessionRecord? GetSession(long characterId);

    /// <summary>The best <paramref name="count"/> scores, read from one snapshot.</summary>
    IReadOnlyList<ScoreRecord> TopScores(int count);

    /// <summary>The largest id used so far (every economy id and the accounts' character ids), to continue the id sequence.</summary>
    long HighestId();

    /// <summary>
    /// The economy and the live sessions as of one consistent cut: every unit in it whole or not at all. No session of
    /// <paramref name="stoppedRun"/> (a server run that stopped cleanly) may be live.
    /// </summary>
    VerificationResult Verify(IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null);

    /// <summary>Stores <paramref name="unit"/> atomically across its collections; a rejection stores nothing of it.</summary>
    Task WriteAsync(GameUnit unit);

    /// <summary>
    /// Stores an account's new login count. Only for an account whose creation unit is stored: the game lets an account
    /// log in again only once every write of its last session is, so this plain write never overtakes that unit.
    /// </summary>
    Task UpsertAccountAsync(AccountRecord account);

    Task UpsertPositionAsync(PositionRecord position);

    Task UpsertScoreAsync(ScoreRecord score);

    Task UpsertChunkAsync(ChunkRecord chunk);

    /// <summary>
    /// Stores <paramref name="session"/> as a lease that ends <paramref name="lease"/> from now (by the store's clock):
    /// from then on it is in no read, unless written again before. Only for a character whose creation is stored, so
    /// that no session ever names a character that is not.
    /// </summary>
    Task UpsertSessionAsync(SessionRecord session, TimeSpan lease);

    /// <summary>Deletes the character's session, if it has one.</summary>
    Task DeleteSessionAsync(long characterId);
}
