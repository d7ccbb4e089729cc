using System.Diagnostics.Metrics;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// The game's state in a Stellar.Store directory (LZ4-compressed blocks), one collection per kind of record. The
/// leaderboard and each character's inventory are read from ordered indexes, declared with their collections' loads
/// (<see cref="GameCollections.ByRank"/>, <see cref="GameCollections.ByOwner"/>) and built from the records they hold.
/// </summary>
internal sealed class StellarGameStore : IGameStore
{
    private readonly StellarStore _store;
    private readonly GameCollections _collections;

    /// <summary>Scores by (score, -character id): its top is the highest score first, ties to the lowest id.</summary>
    private readonly CollectionIndex<(long Score, long NegatedId), long, ScoreRecord> _ranks;
    private readonly CollectionIndex<long, long, ItemRecord> _itemsByOwner;

    private StellarGameStore(StellarStore store, GameCollections collections)
    {
        _store = store;
        _collections = collections;
        _ranks = collections.Leaderboard.Index(GameCollections.ByRank);
        _itemsByOwner = collections.Items.Index(GameCollections.ByOwner);
    }

    public string Description => $"Stellar.Store ({_store.Options.Durability}, LZ4)";

    public string? Directory => _store.Path;

    public long LiveRecords => _collections.Count;

    /// <exception cref="OlderLayoutException">The directory holds a store of the older layout; it is closed unchanged in its records.</exception>
    /// <param name="directory">The store's directory.</param>
    /// <param name="durability">What a completed write survives.</param>
    /// <param name="meters">Where the store creates its meter; null: the process's shared one.</param>
    public static async Task<StellarGameStore> OpenAsync(string directory, Durability durability, IMeterFactory? meters = null)
    {
        var store = await StellarStore.OpenAsync(directory, Options(durability, meters: meters)).ConfigureAwait(false);
        try
        {
            return await OverAsync(store).ConfigureAwait(false);
        }
        catch
        {
            await store.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>The options the game opens its store with; <paramref name="clock"/> (the system's by default) decides when sessions expire.</summary>
    /// <remarks>The store keeps its last <see cref="KeptCheckpoints"/> checkpoints.</remarks>
    public static StoreOptions Options(Durability durability, TimeProvider? clock = null, IMeterFactory? meters = null) => new()
    {
        Durability = durability,
        Compression = Compression.Lz4,
        Clock = clock ?? TimeProvider.System,
        MeterFactory = meters,
        CheckpointRetention = new CheckpointRetention { KeepLast = KeptCheckpoints },
    };

    /// <summary>How many of its newest checkpoints the game keeps: the older ones are deleted as new ones are taken.</summary>
    public const int KeptCheckpoints = 3;

    /// <summary>Takes a checkpoint of the whole store (see <see cref="StellarStore.CheckpointAsync"/>); the tick goes on meanwhile.</summary>
    public Task<CheckpointInfo> CheckpointAsync(string name) => _store.CheckpointAsync(name);

    /// <summary>
    /// The game's state in <paramref name="store"/>, already open (on any storage), once its indexes are built;
    /// disposing the game store disposes it.
    /// </summary>
    /// <exception cref="OlderLayoutException">The store is of the older layout; the caller still owns it.</exception>
    public static async Task<StellarGameStore> OverAsync(StellarStore store)
    {
        var game = new StellarGameStore(store, GameCollections.Open(store));
        await Task.WhenAll(game._ranks.Ready, game._itemsByOwner.Ready).ConfigureAwait(false);
        return game;
    }

    public AccountRecord? GetAccount(string name) => _collections.Accounts.Get(name);

    public CharacterRecord? GetCharacter(long id) => _collections.Characters.Get(id);

    public PositionRecord? GetPosition(long characterId) => _collections.Positions.Get(characterId);

    public IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId) => _itemsByOwner.Equal(characterId).ToList();

    public ScoreRecord? GetScore(long characterId) => _collections.Leaderboard.Get(characterId);

    public ChunkRecord? GetChunk(long id) => _collections.Chunks.Get(id);

    public SessionRecord? GetSession(long characterId) => _collections.Sessions.Get(characterId);

    public IReadOnlyList<ScoreRecord> TopScores(int count) => _ranks.Top(count);

    public long HighestId()
    {
        var c = _collections;
        return new[]
        {
            c.Characters.Query().Select(r => r.Id).DefaultIfEmpty(0).Max(),
            c.Items.Query().Select(r => r.Id).DefaultIfEmpty(0).Max(),
            c.Ledger.Query().Select(r => r.Id).DefaultIfEmpty(0).Max(),
            c.Trades.Query().Select(r => r.Id).DefaultIfEmpty(0).Max(),
            c.Accounts.Query().Select(a => a.CharacterId).DefaultIfEmpty(0).Max(),
        }.Max();
    }

    public VerificationResult Verify(IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null) =>
        Verify(_store, _collections, acknowledgedTrades, stoppedRun);

    /// <summary>
    /// Verifies the economy through one store snapshot: read collection by collection without it, a unit committed
    /// between two reads would show half (a character's new gold without its ledger entry). The snapshot reads the
    /// sessions at the time it was taken.
    /// </summary>
    internal static VerificationResult Verify(StellarStore store, GameCollections collections, IReadOnlyCollection<long>? acknowledgedTrades, Guid? stoppedRun)
    {
        using var cut = store.Snapshot();
        var state = new EconomyState(
            cut.Of(collections.Accounts).Query(),
            cut.Of(collections.Characters).Query(),
            cut.Of(collections.Items).Query(),
            cut.Of(collections.Ledger).Query(),
            cut.Of(collections.Trades).Query(),
            cut.Of(collections.Sessions).Query());
        return EconomyVerifier.Verify(state, acknowledgedTrades, stoppedRun);
    }

    public Task WriteAsync(GameUnit unit) => _store.WriteAsync(tx =>
    {
        // A collection the unit does not touch gets no batch: the fewer collections, the fewer writers take part.
        var c = _collections;
        foreach (var account in unit.NewAccounts)
        {
            tx.In(c.Accounts).Insert(account);
        }

        foreach (var character in unit.NewCharacters)
        {
            tx.In(c.Characters).Insert(character);
        }

        foreach (var character in unit.Characters)
        {
            tx.In(c.Characters).Update(character);
        }

        foreach (var item in unit.NewItems)
        {
            tx.In(c.Items).Insert(item);
        }

        foreach (var item in unit.Items)
        {
            tx.In(c.Items).Update(item);
        }

        foreach (var id in unit.DeletedItems)
        {
            tx.In(c.Items).Delete(id);
        }

        foreach (var entry in unit.Ledger)
        {
            tx.In(c.Ledger).Insert(entry);
        }

        foreach (var trade in unit.Trades)
        {
            tx.In(c.Trades).Insert(trade);
        }
    });

    public Task UpsertAccountAsync(AccountRecord account) => _collections.Accounts.UpsertAsync(account);

    public Task UpsertPositionAsync(PositionRecord position) => _collections.Positions.UpsertAsync(position);

    public Task UpsertScoreAsync(ScoreRecord score) => _collections.Leaderboard.UpsertAsync(score);

    public Task UpsertChunkAsync(ChunkRecord chunk) => _collections.Chunks.UpsertAsync(chunk);

    public Task UpsertSessionAsync(SessionRecord session, TimeSpan lease) => _collections.Sessions.UpsertAsync(session, lease);

    public Task DeleteSessionAsync(long characterId) => _collections.Sessions.DeleteAsync(characterId);

    public ValueTask DisposeAsync() => _store.DisposeAsync();
}
