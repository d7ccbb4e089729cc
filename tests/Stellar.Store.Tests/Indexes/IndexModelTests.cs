using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// An ordered index checked after every step against a model of the records kept by the test (a dictionary), under
/// single writes, atomic batches (some rejected), cross-collection writes, compactions, reopens, and snapshots held
/// across later writes.
/// </summary>
public sealed class IndexModelTests : IDisposable
{
    private static readonly string[] Prefixes = ["ab", "abc", "b", "ba", "Z", "a"];
    private readonly TempDirectory _dir = new();
    private readonly Random _random = new(112025);
    private readonly StoreOptions _options = new() { LargeValueThreshold = 1024, MaxShardBytes = 64 * 1024 };

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Index_UnderWritesBatchesUnitsCompactionsAndReopens_AgreesWithTheModelAtEveryStep()
    {
        var model = new Dictionary<int, Player>();
        var held = new List<(CollectionSnapshot<int, Player> Snapshot, CollectionIndex<long, int, Player> ByGold, Player[] Model)>();
        var store = await StellarStore.OpenAsync(_dir.Path, _options);
        try
        {
            var (players, ledger, byGold, byName) = await Declare(store);
            for (var step = 0; step < 600; step++)
            {
                var roll = _random.Next(100);
                if (roll < 45)
                {
                    var player = NewPlayer();
                    await players.UpsertAsync(player);
                    model[player.Id] = player;
                }
                else if (roll < 60)
                {
                    var id = _random.Next(60);
                    Assert.Equal(model.Remove(id), await players.DeleteAsync(id));
                }
                else if (roll < 75)
                {
                    await Batch(players, model);
                }
                else if (roll < 85)
                {
                    var player = NewPlayer();
                    await store.WriteAsync(tx =>
                    {
                        tx.In(players).Upsert(player);
                        tx.In(ledger).Upsert(new Account(step, player.Gold));
                    });
                    model[player.Id] = player;
                }
                else if (roll < 92)
                {
                    held.Add((players.Snapshot(), byGold, model.Values.ToArray()));
                    if (held.Count > 3)
                    {
                        held[0].Snapshot.Dispose();
                        held.RemoveAt(0);
                    }
                }
                else if (roll < 97)
                {
                    await players.CompactAsync();
                }
                else
                {
                    foreach (var (snapshot, _, _) in held)
                    {
                        snapshot.Dispose();
                    }

                    held.Clear();
                    await store.DisposeAsync();
                    store = await StellarStore.OpenAsync(_dir.Path, _options);
                    (players, ledger, byGold, byName) = await Declare(store);
                }

                CheckLatest(byGold, byName, model);
                foreach (var (snapshot, index, then) in held)
                {
                    CheckView(snapshot.Index(index), then);
                }
            }
        }
        finally
        {
            foreach (var (snapshot, _, _) in held)
            {
                snapshot.Dispose();
            }

            await store.DisposeAsync();
        }
    }

    /// <summary>The collections and their indexes, declared on the loaded collection or, every other time, with its load.</summary>
    private async Task<(Collection<int, Player>, Collection<int, Account>, CollectionIndex<long, int, Player>, CollectionIndex<string, int, Player>)> Declare(StellarStore store)
    {
        var goldDefinition = new IndexDefinition<long, Player>("by-gold", p => p.Gold);
        var nameDefinition = new IndexDefinition<string, Player>("by-name", p => p.Name, unique: true);
        var players = _random.Next(2) == 0
            ? store.GetCollection<int, Player>("players", p => p.Id)
            : store.GetCollection<int, Player>("players", p => p.Id, goldDefinition, nameDefinition);
        var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
        var byGold = players.Index(goldDefinition);
        var byName = players.Index(nameDefinition);
        await Task.WhenAll(byGold.Ready, byName.Ready);
        return (players, ledger, byGold, byName);
    }

    private async Task Batch(Collection<int, Player> players, Dictionary<int, Player> model)
    {
        var writes = Enumerable.Range(0, _random.Next(2, 6)).Select(_ => (Kind: _random.Next(3), Player: NewPlayer())).ToList();
        var next = new Dictionary<int, Player?>();
        var rejected = false;
        foreach (var (kind, player) in writes)
        {
            var exists = next.TryGetValue(player.Id, out var staged) ? staged is not null : model.ContainsKey(player.Id);
            rejected |= kind == 0 && exists;
            next[player.Id] = kind == 2 ? null : player;
        }

        var write = players.WriteAsync(batch =>
        {
            foreach (var (kind, player) in writes)
            {
                switch (kind)
                {
                    case 0: batch.Insert(player); break;
                    case 1: batch.Upsert(player); break;
                    default: batch.Delete(player.Id); break;
                }
            }
        });
        if (rejected)
        {
            await Assert.ThrowsAsync<DuplicateKeyException>(() => write);
            return;
        }

        await write;
        foreach (var (id, player) in next)
        {
            if (player is null)
            {
                model.Remove(id);
            }
            else
            {
                model[id] = player;
            }
        }
    }

    private Player NewPlayer()
    {
        var id = _random.Next(60);
        var name = Prefixes[_random.Next(Prefixes.Length)] + id;
        if (_random.Next(10) == 0)
        {
            // Past the large-value threshold: the store keeps it on disk, and the index reads it back when it is built.
            name += new string('x', 2_000);
        }

        return new Player(id, name, _random.Next(5), _random.Next(12));
    }

    private void CheckLatest(CollectionIndex<long, int, Player> byGold, CollectionIndex<string, int, Player> byName, Dictionary<int, Player> model)
    {
        var byGoldModel = model.Values.OrderBy(p => p.Gold).ThenBy(p => p.Id).ToList();
        Assert.Equal(Records(byGoldModel), Records(byGold.All()));
        var (lo, hi) = (_random.Next(-1, 13), _random.Next(-1, 13));
        Assert.Equal(Records(byGoldModel.Where(p => p.Gold >= lo && p.Gold <= hi)), Records(byGold.Range(lo, hi)));
        Assert.Equal(Records(byGoldModel.Where(p => p.Gold == lo)), Records(byGold.Equal(lo)));
        var count = _random.Next(0, 20);
        Assert.Equal(Records(byGoldModel.AsEnumerable().Reverse().Take(count)), Records(byGold.Top(count)));
        Assert.Equal(Records(byGoldModel.Take(count)), Records(byGold.Bottom(count)));
        var prefix = Prefixes[_random.Next(Prefixes.Length)];
        var byNameModel = model.Values.Where(p => p.Name.StartsWith(prefix, StringComparison.Ordinal)).OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id);
        Assert.Equal(Records(byNameModel), Records(byName.Prefix(prefix)));
        Assert.Equal(model.Values.OrderBy(p => p.Id).ToList(), byGold.All().OrderBy(p => p.Id).ToList());
    }

    private static void CheckView(IndexView<long, int, Player> view, Player[] then)
    {
        var ordered = then.OrderBy(p => p.Gold).ThenBy(p => p.Id).ToList();
        Assert.Equal(Records(ordered), Records(view.All()));
        Assert.Equal(Records(ordered.AsEnumerable().Reverse().Take(5)), Records(view.Top(5)));
        Assert.Equal(Records(ordered.Where(p => p.Gold is >= 3 and <= 7)), Records(view.Range(3, 7)));
        var paged = new List<Player>();
        IndexContinuation<long, int>? next = null;
        do
        {
            var page = view.Page(3, 7, 4, next);
            paged.AddRange(page.Items);
            next = page.Next;
        }
        while (next is not null);

        Assert.Equal(Records(ordered.Where(p => p.Gold is >= 3 and <= 7)), Records(paged));
    }

    /// <summary>The records themselves, compared whole: an answer with the right keys but an older value is wrong.</summary>
    private static List<Player> Records(IEnumerable<Player> players) => players.ToList();
}
