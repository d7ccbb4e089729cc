using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// The game's collections in a <see cref="StellarStore"/>: names, key types and key selectors in one place. Accounts,
/// characters, items, the ledger and trades are written together in units (<c>store.WriteAsync</c>); positions,
/// scores and chunks are plain upserts; sessions are plain upserts that expire, and deletes. The leaderboard and the
/// items are loaded with their indexes (<see cref="ByRank"/>, <see cref="ByOwner"/>), built while they load.
/// </summary>
internal sealed class GameCollections
{
    /// <summary>Scores by (score, -character id): its top is the highest score first, ties to the lowest id.</summary>
    public static readonly IndexDefinition<(long Score, long NegatedId), ScoreRecord> ByRank = new("by-rank", s => (s.Score, -s.CharacterId));

    /// <summary>Items by the character that owns them: an inventory is one key's records.</summary>
    public static readonly IndexDefinition<long, ItemRecord> ByOwner = new("by-owner", i => i.OwnerId);

    private GameCollections(StellarStore store)
    {
        Accounts = store.GetCollection<string, AccountRecord>("accounts", a => a.Name);
        Characters = store.GetCollection<long, CharacterRecord>("characters", c => c.Id);
        Items = store.GetCollection<long, ItemRecord>("items", i => i.Id, ByOwner);
        Ledger = store.GetCollection<long, LedgerEntry>("ledger", l => l.Id);
        Trades = store.GetCollection<long, TradeRecord>("trades", t => t.Id);
        Positions = store.GetCollection<long, PositionRecord>("positions", p => p.CharacterId);
        Leaderboard = store.GetCollection<long, ScoreRecord>("leaderboard", s => s.CharacterId, ByRank);
        Chunks = store.GetCollection<long, ChunkRecord>("chunks", c => c.Id);
        Sessions = store.GetCollection<long, SessionRecord>("sessions", s => s.CharacterId);
    }

    public Collection<string, AccountRecord> Accounts { get; }

    public Collection<long, CharacterRecord> Characters { get; }

    public Collection<long, ItemRecord> Items { get; }

    public Collection<long, LedgerEntry> Ledger { get; }

    public Collection<long, TradeRecord> Trades { get; }

    public Collection<long, PositionRecord> Positions { get; }

    public Collection<long, ScoreRecord> Leaderboard { get; }

    public Collection<long, ChunkRecord> Chunks { get; }

    /// <summary>The sessions whose lease has not ended (an expired one is in no read).</summary>
    public Collection<long, SessionRecord> Sessions { get; }

    /// <summary>Records over every collection (live sessions only).</summary>
    public long Count => Accounts.Count + Characters.Count + Items.Count + Ledger.Count + Trades.Count + Positions.Count + Leaderboard.Count + Chunks.Count + Sessions.Count;

    /// <summary>Opens the game's collections, every one of them before any store snapshot is taken (a snapshot covers only those).</summary>
    /// <exception cref="OlderLayoutException">The store was written by the older layout, with one <c>economy</c> collection.</exception>
    public static GameCollections Open(StellarStore store)
    {
        var collections = new GameCollections(store);

        // The store lists no collection names, so the older layout shows in its data: it kept accounts (as this one
        // does) but no 'characters' collection, and this layout never stores an account without its character (both
        // are one unit). Opening the new collections added them empty and changed no record of the older layout.
        if (collections.Accounts.Count > 0 && collections.Characters.Count == 0)
        {
            throw new OlderLayoutException(store.Path);
        }

        return collections;
    }
}
