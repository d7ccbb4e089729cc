namespace Stellar.Store.Tests.Api;

/// <summary>
/// The per-collection byte bound on queued writes, through the whole store over real files: while the disk stalls,
/// callers wait instead of piling their records up in memory, and every write completes once it recovers.
/// </summary>
public sealed class WriteQueueTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Upsert_WhileTheDiskStalls_QueuesNoMoreThanMaxQueuedBytesThenCompletesEveryWrite()
    {
        const long MaxQueuedBytes = 1024 * 1024;
        var storage = new StalledStorage(_dir.Path);
        var options = new StoreOptions { MaxQueuedBytes = MaxQueuedBytes };
        var values = Enumerable.Range(0, 60).Select(i =>
        {
            var voxels = new byte[100 * 1024];
            new Random(i).NextBytes(voxels);
            return new Chunk { Id = $"c{i}", Voxels = voxels };
        }).ToList();

        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var writes = values.Select(v => chunks.UpsertAsync(v)).ToArray();

            // The first group is stuck in its append: about ten writes fill the bound, the rest wait, none is done.
            var writer = chunks.Writer;
            Assert.InRange(writer.QueuedBytes, 9 * 100 * 1024, MaxQueuedBytes);
            Assert.InRange(writer.Waiting, 50, 51);
            Assert.DoesNotContain(writes, w => w.IsCompleted);

            storage.Open();
            await Task.WhenAll(writes).WaitAsync(TimeSpan.FromMinutes(2));
            Assert.InRange(writer.PeakQueuedBytes, 100 * 1024, MaxQueuedBytes);
            Assert.Equal(0, writer.QueuedBytes);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var again = reopened.GetCollection<string, Chunk>("chunks", c => c.Id);
        Assert.Equal(values.Count, again.Count);
        foreach (var value in values)
        {
            Assert.Equal(value.Voxels, again.Get(value.Id)!.Voxels);
        }
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(64L * 1024 - 1)]
    public async Task OpenAsync_MaxQueuedBytesUnder64KiB_ThrowsNamingTheOption(long maxQueuedBytes)
    {
        var thrown = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { MaxQueuedBytes = maxQueuedBytes }));
        Assert.Equal(nameof(StoreOptions.MaxQueuedBytes), thrown.ParamName);
    }
}
