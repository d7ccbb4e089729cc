using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Keyset paging of the live index while writers move other records through the same keys: each page is read at the
/// newest version, and a record that never moves is given exactly once across the pages, in index order.
/// </summary>
public sealed class IndexPagingUnderWritesTests : IDisposable
{
    private const int Stable = 200;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Page_WhileWritersMoveOtherRecords_GivesEachRecordThatNeverMovesOnceInOrder()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);

        // Half the records that never move are in the index's build, half written after it.
        await players.WriteAsync(b =>
        {
            for (var id = 0; id < Stable / 2; id++)
            {
                b.Insert(StablePlayer(id));
            }
        });
        var byLevel = players.Index("by-level", p => p.Level);
        var byName = players.Index("by-name", p => p.Name);
        await Task.WhenAll(byLevel.Ready, byName.Ready);
        await players.WriteAsync(b =>
        {
            for (var id = Stable / 2; id < Stable; id++)
            {
                b.Insert(StablePlayer(id));
            }
        });

        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 2).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            while (!stop.IsCancellationRequested)
            {
                var id = 1000 + random.Next(300);
                if (random.Next(6) == 0)
                {
                    await players.DeleteAsync(id);
                }
                else
                {
                    var level = random.Next(25);
                    await players.UpsertAsync(new Player(id, Name(level, id), level, 0));
                }
            }
        })).ToList();

        var pagers = Enumerable.Range(0, 2).Select(p => Task.Run(() =>
        {
            var random = new Random(100 + p);
            for (var pass = 0; pass < 40; pass++)
            {
                var limit = random.Next(1, 12);
                AssertOnceInOrder(Walk(byLevel, -1, 100, limit), p => (p.Level, p.Id));
                AssertOnceInOrder(Walk(byName, "", "~", limit), p => (p.Name, p.Id));
            }
        })).ToList();

        await Task.WhenAll(pagers);
        stop.Cancel();
        await Task.WhenAll(writers);
    }

    private static Player StablePlayer(int id) => new(id, Name(id % 20, id), id % 20, 1);

    private static string Name(int level, int id) => $"p{level:D2}-{id % 7}";

    private static List<Player> Walk<TIndexKey>(CollectionIndex<TIndexKey, int, Player> index, TIndexKey from, TIndexKey to, int limit)
    {
        var seen = new List<Player>();
        IndexContinuation<TIndexKey, int>? next = null;
        do
        {
            var page = index.Page(from, to, limit, next);
            Assert.True(page.Items.Count <= limit);
            seen.AddRange(page.Items);
            next = page.Next;
        }
        while (next is not null);

        return seen;
    }

    private static void AssertOnceInOrder<TOrder>(List<Player> seen, Func<Player, TOrder> order)
        where TOrder : IComparable<TOrder>
    {
        var stable = seen.Where(p => p.Gold == 1).ToList();
        Assert.Equal(Enumerable.Range(0, Stable), stable.Select(p => p.Id).Order());
        for (var i = 1; i < seen.Count; i++)
        {
            Assert.True(order(seen[i - 1]).CompareTo(order(seen[i])) < 0, $"{seen[i - 1]} then {seen[i]}");
        }
    }
}
