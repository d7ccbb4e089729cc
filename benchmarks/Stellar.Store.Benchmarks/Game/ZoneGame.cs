using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// ZoneTree with its <c>Sync</c> log: each update is its own upsert (its non-transactional API has no batch). The
/// leaderboard iterates every player (ZoneTree has no secondary index) and keeps the top N.
/// </summary>
internal sealed class ZoneGame : IGameStore
{
    private readonly IZoneTree<int, SmallRecord> _tree;

    public ZoneGame(string directory, SmallRecord[] players)
    {
        _tree = Zone.Open(directory);
        foreach (var player in players)
        {
            _tree.Upsert(player.Id, player);
        }
    }

    public string Name => "ZoneTree_WalSync";

    public string Pairing => Infrastructure.Pairing.OsWrite;

    public bool IsAsync => false;

    public ValueTask WriteTickAsync(IReadOnlyList<SmallRecord> updates)
    {
        foreach (var update in updates)
        {
            _tree.Upsert(update.Id, update);
        }

        return ValueTask.CompletedTask;
    }

    public IReadOnlyList<SmallRecord> Top(int reader, int count)
    {
        var all = new List<SmallRecord>();
        using (var iterator = _tree.CreateIterator(IteratorType.NoRefresh, false, false))
        {
            while (iterator.Next())
            {
                all.Add(iterator.CurrentValue);
            }
        }

        return all.OrderByDescending(p => p.Score).Take(count).ToList();
    }

    public void Dispose() => _tree.Dispose();
}
