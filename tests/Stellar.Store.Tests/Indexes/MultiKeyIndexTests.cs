namespace Stellar.Store.Tests.Indexes;

/// <summary>An index with several keys per record, checked after every step against a model kept by the test.</summary>
public sealed class MultiKeyIndexTests : IDisposable
{
    private static readonly string[] Tags = ["fire", "ice", "rare", "sword", "bow", "cursed"];
    private readonly TempDirectory _dir = new();
    private readonly Random _random = new(7);

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task IndexMany_UnderWritesBatchesAndReopens_ListsEachRecordOnceUnderEachOfItsTags()
    {
        var model = new Dictionary<int, Gear>();
        var held = new List<(CollectionSnapshot<int, Gear> Snapshot, Dictionary<int, Gear> Model)>();
        var store = await StellarStore.OpenAsync(_dir.Path);
        try
        {
            var (gear, byTag) = await Declare(store);
            for (var step = 0; step < 300; step++)
            {
                var roll = _random.Next(10);
                if (roll < 5)
                {
                    var item = NewGear();
                    await gear.UpsertAsync(item);
                    model[item.Id] = item;
                }
                else if (roll < 7)
                {
                    var id = _random.Next(40);
                    Assert.Equal(model.Remove(id), await gear.DeleteAsync(id));
                }
                else if (roll < 8)
                {
                    // One record given a tag, then another, then the first again, in one batch (one version).
                    var id = _random.Next(40);
                    var writes = new[] { new Gear(id, ["fire"]), new Gear(id, ["ice", "rare"]), new Gear(id, ["fire", "fire", "bow"]) };
                    await gear.WriteAsync(b =>
                    {
                        foreach (var write in writes)
                        {
                            b.Upsert(write);
                        }
                    });
                    model[id] = writes[^1];
                }
                else if (roll < 9)
                {
                    held.Add((gear.Snapshot(), new Dictionary<int, Gear>(model)));
                    if (held.Count > 3)
                    {
                        held[0].Snapshot.Dispose();
                        held.RemoveAt(0);
                    }
                }
                else
                {
                    held.ForEach(h => h.Snapshot.Dispose());
                    held.Clear();
                    await store.DisposeAsync();
                    store = await StellarStore.OpenAsync(_dir.Path);
                    (gear, byTag) = await Declare(store);
                }

                foreach (var tag in Tags)
                {
                    Assert.Equal(Expected(model, tag), byTag.Equal(tag).Select(g => g.Id));
                }

                var all = model.Values.SelectMany(g => g.Tags.Distinct().Select(t => (Tag: t, g.Id))).OrderBy(x => x.Tag, StringComparer.Ordinal).ThenBy(x => x.Id);
                Assert.Equal(all.Select(x => x.Id), byTag.All().Select(g => g.Id));
                foreach (var (snapshot, then) in held)
                {
                    var view = snapshot.Index(byTag);
                    Assert.Equal(Expected(then, "rare"), view.Equal("rare").Select(g => g.Id));
                }
            }
        }
        finally
        {
            held.ForEach(h => h.Snapshot.Dispose());
            await store.DisposeAsync();
        }
    }

    private static IEnumerable<int> Expected(Dictionary<int, Gear> model, string tag) =>
        model.Values.Where(g => g.Tags.Contains(tag)).Select(g => g.Id).Order();

    private static async Task<(Collection<int, Gear>, CollectionIndex<string, int, Gear>)> Declare(StellarStore store)
    {
        var gear = store.GetCollection<int, Gear>("gear", g => g.Id);
        var byTag = gear.IndexMany("by-tag", g => g.Tags);
        await byTag.Ready;
        return (gear, byTag);
    }

    private Gear NewGear() => new(_random.Next(40), Enumerable.Range(0, _random.Next(0, 4)).Select(_ => Tags[_random.Next(Tags.Length)]).ToArray());
}
