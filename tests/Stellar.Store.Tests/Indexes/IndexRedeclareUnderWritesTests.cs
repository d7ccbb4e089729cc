namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Indexes declared, dropped and declared again while writers write, one key and many (whose sets of keys change, hold
/// duplicates and become empty or null): each, once ready, answers through a snapshot exactly what a scan of the
/// snapshot's records gives.
/// </summary>
public sealed class IndexRedeclareUnderWritesTests : IDisposable
{
    private static readonly string[] AllTags = ["axe", "bow", "cap", "dye"];
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Indexes_DeclaredDroppedAndDeclaredAgainUnderWrites_AgreeWithTheRecordsOfEachSnapshot()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { MaxShardBytes = 64 * 1024 });
        var items = store.GetCollection<int, Item>("items", i => i.Id);
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 2).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            while (!stop.IsCancellationRequested)
            {
                var roll = random.Next(10);
                if (roll == 0)
                {
                    await items.DeleteAsync(random.Next(200));
                }
                else if (roll == 1)
                {
                    await items.WriteAsync(b =>
                    {
                        var id = random.Next(200);
                        b.Delete(id);
                        b.Upsert(RandomItem(random, id));
                        b.Upsert(RandomItem(random, id));
                    });
                }
                else
                {
                    await items.UpsertAsync(RandomItem(random, random.Next(200)));
                }
            }
        })).ToList();

        for (var round = 0; round < 25; round++)
        {
            var byLevel = items.Index("by-level", i => i.Level);
            var byTag = items.IndexMany("by-tag", i => i.Tags);
            var byCode = items.Index("by-code", i => $"c{i.Id:D4}", unique: true);
            await Task.WhenAll(byLevel.Ready, byTag.Ready, byCode.Ready);
            for (var check = 0; check < 3; check++)
            {
                using var snapshot = items.Snapshot();
                var records = snapshot.Query().ToList();
                Assert.Equal(
                    records.OrderBy(i => i.Level).ThenBy(i => i.Id).Select(i => i.Id),
                    snapshot.Index(byLevel).All().Select(i => i.Id));
                Assert.Equal(
                    records.SelectMany(i => (i.Tags ?? []).Distinct().Select(t => (t, i.Id))).OrderBy(e => e.t, StringComparer.Ordinal).ThenBy(e => e.Id),
                    AllTags.SelectMany(t => snapshot.Index(byTag).Equal(t).Select(i => (t, i.Id))));
                Assert.Equal(records.OrderBy(i => i.Id).Select(i => i.Id), snapshot.Index(byCode).All().Select(i => i.Id));
            }

            await items.DropIndexAsync(byLevel);
            await items.DropIndexAsync(byTag);
            await items.DropIndexAsync(byCode);
        }

        stop.Cancel();
        await Task.WhenAll(writers);
    }

    private static Item RandomItem(Random random, int id)
    {
        string[]? tags = random.Next(6) switch
        {
            0 => null,
            1 => [],
            _ => Enumerable.Range(0, random.Next(1, 5)).Select(_ => AllTags[random.Next(AllTags.Length)]).ToArray(),
        };
        return new Item(id, random.Next(10), tags);
    }

    public sealed record Item(int Id, int Level, string[]? Tags);
}
