using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>The game's state in a Stellar.Store directory (LZ4-compressed blocks).</summary>
internal sealed class StellarGameStore : IGameStore
{
    private readonly StellarStore _store;
    private readonly GameCollections _collections;

    private StellarGameStore(StellarStore store)
    {
        _store = store;
        _collections = new GameCollections(store);
    }

    public string Description => $"Stellar.Store ({_store.Options.Durability}, LZ4)";

    public string? Directory => _store.Path;

    public long LiveRecords =>
        _collections.Accounts.Count + _collections.Economy.Count + _collections.Leaderboard.Count + _collections.Chunks.Count;

    public static async Task<StellarGameStore> OpenAsync(string directory, Durability durability)
    {
        var store = await StellarStore.OpenAsync(directory, new StoreOptions { Durability = durability, Compression = Compression.Lz4 })
            .ConfigureAwait(false);
        return new StellarGameStore(store);
    }

    public AccountRecord? GetAccount(string name) => _collections.Accounts.Get(name);

    public CharacterRecord? GetCharacter(long id) =>
        _collections.Economy.Get(new EconomyKey(EconomyKind.Character, id)) as CharacterRecord;

    public IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId) =>
        _collections.Economy.Query(r => r is ItemRecord item && item.OwnerId == characterId).Cast<ItemRecord>().ToList();

    public ScoreRecord? GetScore(long characterId) => _collections.Leaderboard.Get(characterId);

    public ChunkRecord? GetChunk(long id) => _collections.Chunks.Get(id);

    public IReadOnlyList<ScoreRecord> TopScores(int count)
    {
        using var snapshot = _collections.Leaderboard.Snapshot();
        return snapshot.Query().OrderByDescending(s => s.Score).ThenBy(s => s.CharacterId).Take(count).ToList();
    }

    public long HighestId()
    {
        var economy = _collections.Economy.Query().Select(r => r.Key.Id).DefaultIfEmpty(0).Max();
        var accounts = _collections.Accounts.Query().Select(a => a.CharacterId).DefaultIfEmpty(0).Max();
        return Math.Max(economy, accounts);
    }

    public Task WriteEconomyAsync(EconomyBatch batch) => _collections.Economy.WriteAsync(b =>
    {
        foreach (var record in batch.Inserts)
        {
            b.Insert(record);
        }

        foreach (var record in batch.Upserts)
        {
            b.Upsert(record);
        }

        foreach (var key in batch.Deletes)
        {
            b.Delete(key);
        }
    });

    public Task UpsertAccountAsync(AccountRecord account) => _collections.Accounts.UpsertAsync(account);

    public Task UpsertScoreAsync(ScoreRecord score) => _collections.Leaderboard.UpsertAsync(score);

    public Task UpsertChunkAsync(ChunkRecord chunk) => _collections.Chunks.UpsertAsync(chunk);

    public ValueTask DisposeAsync() => _store.DisposeAsync();
}
