using LiteDB;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>LiteDB with an index on score; a tick's updates as one <c>Upsert(IEnumerable)</c> (one transaction, one fsync).</summary>
internal sealed class LiteGame : IGameStore
{
    private readonly LiteDatabase _database;
    private readonly ILiteCollection<SmallRecord> _players;

    public LiteGame(string directory, SmallRecord[] players)
    {
        _database = Lite.Open(directory);
        _players = Lite.Small(_database);
        _players.EnsureIndex(p => p.Score);
        _players.InsertBulk(players);
    }

    public string Name => "LiteDb_Fsync";

    public string Pairing => Infrastructure.Pairing.Fsync;

    public bool IsAsync => false;

    public ValueTask WriteTickAsync(IReadOnlyList<SmallRecord> updates)
    {
        _players.Upsert(updates);
        return ValueTask.CompletedTask;
    }

    public IReadOnlyList<SmallRecord> Top(int reader, int count) =>
        _players.Query().OrderByDescending(p => p.Score).Limit(count).ToList();

    public void Dispose() => _database.Dispose();
}
