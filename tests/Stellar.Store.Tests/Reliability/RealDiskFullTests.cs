using Stellar.Store.Storage;
using Stellar.Store.TestHost.Workload;
using Stellar.Store.Tests.Support;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>A real full disk: the store on a 512 KiB tmpfs, written until the device is out of space.</summary>
public sealed class RealDiskFullTests : IDisposable
{
    private const int Tasks = 4;
    private const int KeysPerTask = 50;
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(2);

    private readonly TempDirectory _dir = new();
    private readonly ITestOutputHelper _output;

    public RealDiskFullTests(ITestOutputHelper output) => _output = output;

    public void Dispose() => _dir.Dispose();

    [SkippableTheory]
    [InlineData(Durability.WriteThrough, Compression.None, false)]
    [InlineData(Durability.Fsync, Compression.Lz4, true)]
    public async Task Writes_WhenTheRealDiskIsFull_FailWithStoreFaultedAndTheStoreReopensWithEveryAcknowledgedWrite(
        Durability durability, Compression compression, bool encrypted)
    {
        using var disk = SmallFileSystem.MountOrSkip(_dir.Sub("disk"), 512 * 1024);

        var path = Path.Combine(disk.Path, "store");
        // Without automatic compaction, so the disk surely fills: with it, a compaction that reclaims space as fast
        // as the small records arrive can keep the store under the device's size for the whole workload.
        var options = WorkloadOptions.Create(durability, compression, encrypted, autoCompaction: false);
        WorkloadRunner runner;
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var items = store.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
            runner = new WorkloadRunner(seed: 1, Tasks, KeysPerTask, items);
            await runner.RunAsync(maxSteps: 100_000).WaitAsync(HangTimeout);

            Assert.All(runner.Failures, failure => Assert.IsType<StoreFaultedException>(failure));
            Assert.Contains(runner.Failures, failure => failure!.InnerException is IOException io && StorageErrors.IsDiskFull(io));
            await Assert.ThrowsAsync<StoreFaultedException>(() => items.UpsertAsync(new WorkloadItem(-1, -1, -1, "refused")));
        }

        await using (var reopened = await StellarStore.OpenAsync(path, options).WaitAsync(HangTimeout))
        {
            var items = reopened.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
            WorkloadCheck.Verify(items.Query().ToDictionary(i => i.Id), seed: 1, KeysPerTask, runner.Acknowledged, runner.Attempted,
                $"real full disk ({durability}, {compression}, {(encrypted ? "encrypted" : "plain")})");
            _output.WriteLine($"{runner.AcknowledgedCount} acknowledged steps before the disk filled; {reopened.Recovery.TruncatedBytes} torn bytes cut at reopen.");
        }
    }
}
