using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>What a snapshot answers over its life: while open, after <c>Dispose</c>, and after its store is gone.</summary>
public sealed class SnapshotLifetimeTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Snapshot_AfterDispose_ThrowsObjectDisposedOnEveryRead()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = Players(store);
        await players.UpsertAsync(new Player(1, "one", 1, 1));
        var view = players.Snapshot();
        view.Dispose();
        view.Dispose(); // idempotent

        Assert.Throws<ObjectDisposedException>(() => view.Get(1));
        Assert.Throws<ObjectDisposedException>(() => view.TryGet(1, out _));
        Assert.Throws<ObjectDisposedException>(() => view.Count);
        Assert.Throws<ObjectDisposedException>(() => view.Query());
        Assert.Equal(0, players.Statistics.OpenSnapshots);
    }

    [Fact]
    public async Task Query_EnumeratedAcrossDispose_ThrowsObjectDisposedAtTheNextElement()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = Players(store);
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < 10; i++)
            {
                b.Upsert(new Player(i, $"p{i}", 1, 1));
            }
        });
        var view = players.Snapshot();
        using var enumerator = view.Query().GetEnumerator();
        Assert.True(enumerator.MoveNext());

        view.Dispose();

        Assert.Throws<ObjectDisposedException>(() => enumerator.MoveNext());
    }

    /// <summary>
    /// What a walk of an index reads after its snapshot is disposed is read without the pin that kept it valid, so the
    /// walk throws rather than answer: at its next element, and also where it would have ended (it might have ended
    /// only because what it read no longer held).
    /// </summary>
    [Fact]
    public async Task IndexReads_EnumeratedAcrossDispose_ThrowObjectDisposed_AlsoWhereTheWalkWouldHaveEnded()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = Players(store);
        await players.WriteAsync(b =>
        {
            for (var i = 0; i < 3; i++)
            {
                b.Upsert(new Player(i, $"p{i}", i, 1));
            }
        });
        var byLevel = players.Index("by-level", p => p.Level);
        await byLevel.Ready;

        var view = players.Snapshot();
        using var all = view.Index(byLevel).All().GetEnumerator();
        using var range = view.Index(byLevel).Range(0, 1).GetEnumerator();
        for (var i = 0; i < 3; i++)
        {
            Assert.True(all.MoveNext());
        }

        Assert.True(range.MoveNext());
        Assert.True(range.MoveNext());
        view.Dispose();

        Assert.Throws<ObjectDisposedException>(() => all.MoveNext());
        Assert.Throws<ObjectDisposedException>(() => range.MoveNext());
        Assert.Throws<ObjectDisposedException>(() => view.Index(byLevel));
    }

    [Fact]
    public async Task Snapshot_OutlivingItsStore_ThrowsObjectDisposedAndItsDisposeStillWorks()
    {
        var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { LargeValueThreshold = 1024 });
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        await chunks.UpsertAsync(new Chunk { Id = "small", Voxels = new byte[10] });
        await chunks.UpsertAsync(new Chunk { Id = "large", Voxels = new byte[10_000] });
        var view = chunks.Snapshot();
        Assert.Equal(10_000, view.Get("large")!.Voxels.Length);

        await store.DisposeAsync();

        // Both kinds of value fail alike: a value kept on disk could no longer be read, one in memory is not promised.
        Assert.Throws<ObjectDisposedException>(() => view.Get("small"));
        Assert.Throws<ObjectDisposedException>(() => view.Get("large"));
        Assert.Throws<ObjectDisposedException>(() => view.Query().ToList());
        view.Dispose();

        // The store closed cleanly with the snapshot open: it reopens with both values.
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { LargeValueThreshold = 1024 });
        var again = reopened.GetCollection<string, Chunk>("chunks", c => c.Id);
        Assert.Equal(10, again.Get("small")!.Voxels.Length);
        Assert.Equal(10_000, again.Get("large")!.Voxels.Length);
    }

    /// <summary>
    /// Compacted shard files stay while a snapshot that may read from them is open, and go once it is released,
    /// without waiting for another write: the release asks the writer to delete them.
    /// </summary>
    [Fact]
    public async Task CompactedFiles_KeptForAnOpenSnapshot_AreDeletedOnceItIsReleasedWithoutAnotherWrite()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, CompactionThreshold = 0, LargeValueThreshold = 1024 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        for (var i = 0; i < 4; i++)
        {
            await chunks.UpsertAsync(MakeChunk(i, round: 1));
        }

        var view = chunks.Snapshot();
        for (var i = 0; i < 4; i++)
        {
            await chunks.UpsertAsync(MakeChunk(i, round: 2));
        }

        var before = ShardNames();
        await chunks.CompactAsync();

        // The snapshot reads values the compaction did not copy, from files the manifest no longer lists.
        Assert.All(Enumerable.Range(0, 4), i => Assert.Equal(MakeChunk(i, round: 1).Voxels, view.Get($"chunk-{i}")!.Voxels));
        var kept = before.Intersect(ShardNames()).ToArray();
        Assert.NotEmpty(kept);

        view.Dispose();
        await store.FlushAsync(); // a barrier behind the writer's clean-up, not a write

        Assert.Empty(before.Intersect(ShardNames()));
        Assert.All(Enumerable.Range(0, 4), i => Assert.Equal(MakeChunk(i, round: 2).Voxels, chunks.Get($"chunk-{i}")!.Voxels));
    }

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static Chunk MakeChunk(int id, int round)
    {
        var voxels = new byte[40_000];
        new Random(id * 1000 + round).NextBytes(voxels);
        return new Chunk { Id = $"chunk-{id}", Voxels = voxels };
    }

    private string[] ShardNames() => Directory.GetFiles(_dir.Path, "*.shard").Select(Path.GetFileName).ToArray()!;
}
