using Stellar.Store.Shards;

namespace Stellar.Store.Tests.Shards;

/// <summary>The thread a collection's fsyncs run on: in order, each with its own outcome, and nothing after it stops.</summary>
public sealed class DeviceThreadTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task RunAsync_ManyItems_RunsThemInOrderOffTheCallersThreadAndReportsEachOutcome()
    {
        using var device = new DeviceThread("test-device");
        var ran = new List<int>();
        var threads = new HashSet<int>();
        var caller = Environment.CurrentManagedThreadId;
        var items = Enumerable.Range(0, 100).Select(i => device.RunAsync(() =>
        {
            ran.Add(i);
            threads.Add(Environment.CurrentManagedThreadId);
            if (i == 50)
            {
                throw new IOException("the device failed");
            }
        })).ToList();

        await Assert.ThrowsAsync<IOException>(() => items[50].WaitAsync(Patience));
        await Task.WhenAll(items.Where((_, i) => i != 50)).WaitAsync(Patience);
        Assert.Equal(Enumerable.Range(0, 100), ran);
        var thread = Assert.Single(threads);
        Assert.NotEqual(caller, thread);
    }

    [Fact]
    public async Task Dispose_LetsQueuedWorkFinishAndRefusesLaterWork()
    {
        var device = new DeviceThread("test-device");
        using var release = new ManualResetEventSlim();
        var first = device.RunAsync(() => release.Wait(Patience));
        var second = device.RunAsync(() => { });
        var disposing = Task.Run(device.Dispose);
        release.Set();
        await Task.WhenAll(first, second, disposing).WaitAsync(Patience);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => device.RunAsync(() => { }));
    }

    [Fact]
    public async Task Dispose_OnTheDeviceThreadItself_EndsItWithoutWaitingForItself()
    {
        // A continuation of the thread's work may run on it (its outcome is reported there) and dispose it, as a test's
        // continuation did: joining itself would never return.
        var device = new DeviceThread("test-device");
        using var queued = new ManualResetEventSlim();
        var disposedOnItself = device.RunAsync(() =>
        {
            queued.Wait(Patience);
            device.Dispose();
        });
        var queuedBefore = device.RunAsync(() => { });
        queued.Set();

        await Task.WhenAll(disposedOnItself, queuedBefore).WaitAsync(Patience);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => device.RunAsync(() => { }));
        device.Dispose();
    }
}
