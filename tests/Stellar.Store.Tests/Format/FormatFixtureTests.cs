using System.Text;
using Stellar.Store.TestHost.Workload;
using Stellar.Store.Tests.Feed;

namespace Stellar.Store.Tests.Format;

/// <summary>
/// Stores written by older builds (see <c>Format/Fixtures/README.md</c>) open, read back exactly what was written,
/// take new writes, and open again: a format change never strands a store already on a player's disk. A store holding
/// units across collections keeps every unit whole, which it can only do by reading the unit log it was written with;
/// change feed cursors stored before they could hold compaction keep their positions.
/// </summary>
public sealed class FormatFixtureTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData("format1-plain", false)]
    [InlineData("format1-encrypted", true)]
    [InlineData("format2-plain", false)]
    [InlineData("format2-encrypted", true)]
    [InlineData("format3-plain", false)]
    [InlineData("format3-encrypted", true)]
    [InlineData("format4-plain", false)]
    [InlineData("format4-encrypted", true)]
    public async Task Open_AStoreWrittenByAnOlderFormat_ReadsEveryRecordAndTakesNewWrites(string fixture, bool encrypted)
    {
        var path = CopyFixture(fixture);
        var expected = FormatFixture.Expected();
        var options = FormatFixture.Options(encrypted);

        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            Assert.Equal(0, store.Recovery.TruncatedBytes);
            Assert.Empty(store.Recovery.RemovedFiles);
            var items = store.GetCollection<int, WorkloadItem>(FormatFixture.CollectionName, i => i.Id);
            AssertHolds(expected, items);

            var added = new WorkloadItem(FormatFixture.Keys + 1, Task: 1, Step: 9, "written by this build");
            await items.InsertAsync(added);
            Assert.True(await items.DeleteAsync(1));
            expected[added.Id] = added;
            expected.Remove(1);
            await items.CompactAsync();
            AssertHolds(expected, items);
        }

        // The first open rewrote the manifest in the current format, so that a build of the older format now refuses it.
        Assert.Equal(Stellar.Store.Format.Manifest.CurrentFormatVersion, ManifestVersion(path));

        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            AssertHolds(expected, reopened.GetCollection<int, WorkloadItem>(FormatFixture.CollectionName, i => i.Id));
        }
    }

    [Theory]
    [InlineData("format3-units")]
    [InlineData("format4-units")]
    public async Task Open_AStoreWithUnitsWrittenByAnOlderFormat_ReadsEveryUnitWholeAndTakesNewUnits(string fixture)
    {
        var path = CopyFixture(fixture);
        var manifest = Encoding.UTF8.GetString(File.ReadAllBytes(Path.Combine(path, "MANIFEST")));
        Assert.Contains("\"$units\"", manifest, StringComparison.Ordinal);
        var expected = UnitsFixture.Expected();
        var options = UnitsFixture.Options();

        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            Assert.Equal(0, store.Recovery.TruncatedBytes);
            Assert.Empty(store.Recovery.RemovedFiles);
            var collections = OpenUnitsCollections(store);

            // Every part of every unit was decided by the unit log the older build wrote: none is left out as uncommitted.
            Assert.All(collections, c => Assert.Equal(0, c.Statistics.UncommittedUnitBlocks));
            AssertHoldsAll(expected, collections);

            var ledgerEntry = expected[UnitsFixture.Ledger].Keys.Min();
            var character = UnitsFixture.Item(UnitsFixture.Characters, 1, step: 1_000);
            var item = UnitsFixture.Item(UnitsFixture.Items, 1_000, step: 1_000);
            await store.WriteAsync(tx =>
            {
                tx.In(collections[UnitsFixture.Characters]).Upsert(character);
                tx.In(collections[UnitsFixture.Items]).Insert(item);
                tx.In(collections[UnitsFixture.Ledger]).Delete(ledgerEntry);
            });
            UnitsFixture.Apply(expected,
            [
                (UnitsFixture.Characters, new WorkloadWrite(WorkloadWriteKind.Upsert, character.Id, character)),
                (UnitsFixture.Items, new WorkloadWrite(WorkloadWriteKind.Insert, item.Id, item)),
                (UnitsFixture.Ledger, new WorkloadWrite(WorkloadWriteKind.Delete, ledgerEntry, null)),
            ]);
            AssertHoldsAll(expected, collections);
        }

        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            var collections = OpenUnitsCollections(reopened);
            Assert.All(collections, c => Assert.Equal(0, c.Statistics.UncommittedUnitBlocks));
            AssertHoldsAll(expected, collections);
        }
    }

    [Fact]
    public async Task Feed_OfCursorsStoredBeforeCursorsCouldHoldCompaction_ResumesEachWhereItWasAndTakesAHold()
    {
        var path = CopyFixture("feed-cursors");
        var manifest = Path.Combine(path, "MANIFEST");
        Assert.Contains("\"System.ValueTuple\\u00602[System.String,System.String]\"", File.ReadAllText(manifest, Encoding.UTF8), StringComparison.Ordinal);
        var options = CursorsFixture.Options();
        var added = CursorsFixture.Item(CursorsFixture.Items + 1);
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var items = store.GetCollection<int, WorkloadItem>(CursorsFixture.CollectionName, i => i.Id);
            await items.UpsertAsync(added);
            foreach (var (cursor, lastItem) in CursorsFixture.Cursors)
            {
                Assert.Null(items.Feed(cursor).MaxHeldBytes);
                Assert.Equal(Enumerable.Range(lastItem + 1, added.Id - lastItem), await FeedReading.ReadKeysAsync(items.Changes(cursor), added.Id - lastItem));
            }

            await items.Feed(CursorsFixture.Cursors[0].Cursor).HoldCompactionAsync(1L << 30);
        }

        Assert.Contains("\"Stellar.Store.Feed.FeedCursorRecord\"", File.ReadAllText(manifest, Encoding.UTF8), StringComparison.Ordinal);

        await using (var reopened = await StellarStore.OpenAsync(path, options))
        {
            var items = reopened.GetCollection<int, WorkloadItem>(CursorsFixture.CollectionName, i => i.Id);
            var (held, heldLast) = CursorsFixture.Cursors[0];
            var (other, otherLast) = CursorsFixture.Cursors[1];
            Assert.Equal(1L << 30, items.Feed(held).MaxHeldBytes);
            Assert.Null(items.Feed(other).MaxHeldBytes);
            Assert.Equal(Enumerable.Range(heldLast + 1, added.Id - heldLast), await FeedReading.ReadKeysAsync(items.Changes(held), added.Id - heldLast));
            Assert.Equal(Enumerable.Range(otherLast + 1, added.Id - otherLast), await FeedReading.ReadKeysAsync(items.Changes(other), added.Id - otherLast));
        }
    }

    [Fact]
    public async Task Store_WithAChangeFeedCursor_HasAFormatThatTheBuildsBeforeTheFeedRefuse()
    {
        // format4-plain was written by the last build before the change feed: a store holding a cursor must carry a
        // newer format number, or such a build would open it, take `$cursors` for a bad name and drop what the feed keeps.
        var before = ManifestVersion(CopyFixture("format4-plain"));
        var path = _dir.Sub("with-cursor");
        await using (var store = await StellarStore.OpenAsync(path, FormatFixture.Options(encrypted: false)))
        {
            var items = store.GetCollection<int, WorkloadItem>(FormatFixture.CollectionName, i => i.Id);
            await items.InsertAsync(new WorkloadItem(1, Task: 1, Step: 1, "one"));
            var cursor = items.Feed("analytics");
            await foreach (var change in cursor.Changes())
            {
                await cursor.AcknowledgeAsync(change.Position);
                break;
            }
        }

        Assert.True(ManifestVersion(path) > before, $"a store with a change feed cursor is of format {ManifestVersion(path)}, which builds of format {before} open");
    }

    private static int ManifestVersion(string store) => BitConverter.ToInt32(File.ReadAllBytes(Path.Combine(store, "MANIFEST")), 4);

    private static Collection<int, WorkloadItem>[] OpenUnitsCollections(StellarStore store) =>
        UnitsFixture.CollectionNames.Select(n => store.GetCollection<int, WorkloadItem>(n, i => i.Id)).ToArray();

    private static void AssertHoldsAll(Dictionary<int, WorkloadItem>[] expected, Collection<int, WorkloadItem>[] collections)
    {
        Assert.Equal(expected.Length, collections.Length);
        for (var c = 0; c < collections.Length; c++)
        {
            AssertHolds(expected[c], collections[c]);
        }
    }

    private static void AssertHolds(Dictionary<int, WorkloadItem> expected, Collection<int, WorkloadItem> items)
    {
        Assert.Equal(expected.Count, items.Count);
        Assert.Equal(expected.OrderBy(p => p.Key).Select(p => p.Value), items.Query().OrderBy(i => i.Id));
        foreach (var (id, item) in expected)
        {
            Assert.Equal(item, items.Get(id));
        }
    }

    private string CopyFixture(string name)
    {
        var source = Path.Combine(AppContext.BaseDirectory, "Format", "Fixtures", name);
        Assert.True(Directory.Exists(source), $"The fixture '{source}' was not copied to the test output.");
        var target = _dir.Sub(name);
        Directory.CreateDirectory(target);
        foreach (var file in Directory.EnumerateFiles(source))
        {
            File.Copy(file, Path.Combine(target, Path.GetFileName(file)));
        }

        return target;
    }
}
