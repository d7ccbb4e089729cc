using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>The game's collections in a <see cref="StellarStore"/>: names, key types and key selectors in one place.</summary>
internal sealed class GameCollections
{
    public GameCollections(StellarStore store)
    {
        Accounts = store.GetCollection<string, AccountRecord>("accounts", a => a.Name);
        Economy = store.GetCollection<EconomyKey, EconomyRecord>("economy", r => r.Key);
        Leaderboard = store.GetCollection<long, ScoreRecord>("leaderboard", s => s.CharacterId);
        Chunks = store.GetCollection<long, ChunkRecord>("chunks", c => c.Id);
    }

    public Collection<string, AccountRecord> Accounts { get; }

    /// <summary>Characters, items, the gold ledger and trades: everything an atomic gold or item change touches.</summary>
    public Collection<EconomyKey, EconomyRecord> Economy { get; }

    public Collection<long, ScoreRecord> Leaderboard { get; }

    public Collection<long, ChunkRecord> Chunks { get; }
}
