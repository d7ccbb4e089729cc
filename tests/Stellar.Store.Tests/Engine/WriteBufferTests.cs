using MessagePack;
using Stellar.Store.Engine;
using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// Every write's encoded record lives in a pooled buffer. Whatever the write's outcome (stored, rejected, failed by
/// a fault, refused by a closing store, cancelled, part of a failed import), its buffer goes back to the pool exactly
/// once. The value type is used by no other test, so the per-type counters see only these writes.
/// </summary>
public sealed class WriteBufferTests
{
    [MessagePackObject]
    public sealed record BufferProbe([property: Key(0)] int Id, [property: Key(1)] string Text);

    private static long Rented => SingleWrite<int, BufferProbe>.BuffersRented;

    private static long Returned => SingleWrite<int, BufferProbe>.BuffersReturned;

    private static Collection<int, BufferProbe> Probes(StellarStore store) => store.GetCollection<int, BufferProbe>("probes", p => p.Id);

    /// <summary>Runs <paramref name="scenario"/> and checks that it rented buffers and returned each one.</summary>
    private static async Task AssertEveryBufferReturned(Func<Task> scenario)
    {
        var rented = Rented;
        var returned = Returned;
        await scenario();
        Assert.True(Rented > rented, "the scenario wrote nothing");
        Assert.Equal(Rented - rented, Returned - returned);
    }

    [Fact]
    public Task Writes_StoredAndRejected_ReturnEveryBuffer() => AssertEveryBufferReturned(async () =>
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage());
        var probes = Probes(store);
        await probes.InsertAsync(new BufferProbe(1, "a"));
        await probes.UpsertAsync(new BufferProbe(2, "b"));
        await Assert.ThrowsAsync<DuplicateKeyException>(() => probes.InsertAsync(new BufferProbe(1, "again")));
        await Assert.ThrowsAsync<KeyNotFoundException>(() => probes.UpdateAsync(new BufferProbe(9, "missing")));
        Assert.True(await probes.DeleteAsync(2));
        Assert.False(await probes.DeleteAsync(2));
        await probes.WriteAsync(b => b.Upsert(new BufferProbe(3, "c")).Delete(3).Delete(77).Insert(new BufferProbe(4, "d")));
        await Assert.ThrowsAsync<DuplicateKeyException>(() => probes.WriteAsync(b => b.Upsert(new BufferProbe(5, "e")).Insert(new BufferProbe(1, "dup"))));
        await Assert.ThrowsAsync<InvalidOperationException>(() => probes.WriteAsync(b =>
        {
            b.Upsert(new BufferProbe(6, "f"));
            throw new InvalidOperationException("the caller's callback failed");
        }));
        await probes.BulkImportAsync(Enumerable.Range(100, 500).Select(i => new BufferProbe(i, "imported")));
        Assert.Equal(502, probes.Count);
    });

    [Fact]
    public Task Writes_AfterAStorageFault_ReturnEveryBuffer() => AssertEveryBufferReturned(async () =>
    {
        var faults = new FaultInjectingStorage(new MemoryStorage());
        await using var store = await StellarStore.OpenAsync(faults, new StoreOptions { Durability = Durability.Fsync });
        var probes = Probes(store);
        await probes.InsertAsync(new BufferProbe(1, "kept"));
        faults.FailFlushAt = faults.FlushCount + 1;
        await Assert.ThrowsAsync<StoreFaultedException>(() => probes.InsertAsync(new BufferProbe(2, "failed")));

        // The collection is faulted: each later write is refused by the writer without being staged.
        await Assert.ThrowsAsync<StoreFaultedException>(() => probes.InsertAsync(new BufferProbe(3, "refused")));
        await Assert.ThrowsAsync<StoreFaultedException>(() => probes.WriteAsync(b => b.Upsert(new BufferProbe(4, "x")).Upsert(new BufferProbe(5, "y"))));
        await Assert.ThrowsAsync<StoreFaultedException>(() => probes.BulkImportAsync(Enumerable.Range(10, 300).Select(i => new BufferProbe(i, "imported"))));
        await Task.WhenAll(Enumerable.Range(20, 50).Select(i => Assert.ThrowsAsync<StoreFaultedException>(() => probes.UpsertAsync(new BufferProbe(i, "concurrent")))));
    });

    [Fact]
    public Task Writes_RacingTheStoresClose_ReturnEveryBuffer() => AssertEveryBufferReturned(async () =>
    {
        for (var round = 0; round < 20; round++)
        {
            var store = await StellarStore.OpenAsync(new MemoryStorage());
            var probes = Probes(store);
            var writes = new List<Task>();
            var writers = Enumerable.Range(0, 4).Select(t => Task.Run(async () =>
            {
                for (var i = 0; i < 200; i++)
                {
                    try
                    {
                        await probes.UpsertAsync(new BufferProbe((t * 1000) + i, "racing"));
                    }
                    catch (ObjectDisposedException)
                    {
                        // Refused by the closing store: nothing stored, and its buffer must still come back.
                    }
                }
            })).ToArray();
            await Task.Yield();
            await store.DisposeAsync();
            await Task.WhenAll(writers);
        }
    });

    [Fact]
    public Task Writes_CancelledWhileWaitingForTheQueue_ReturnEveryBuffer() => AssertEveryBufferReturned(async () =>
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { MaxQueuedWrites = 1 });
        var probes = Probes(store);
        for (var round = 0; round < 50; round++)
        {
            var busy = probes.UpsertAsync(new BufferProbe(-1, new string('x', 100_000)));
            using var cancel = new CancellationTokenSource();
            var write = probes.UpsertAsync(new BufferProbe(round, "maybe"), cancel.Token);
            cancel.Cancel();
            await Record.ExceptionAsync(() => write);
            await busy;
        }
    });

    [Fact]
    public Task BulkImport_ThatFails_ReturnsEveryBuffer() => AssertEveryBufferReturned(async () =>
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { MaxDegreeOfParallelism = 2 });
        var bad = new InvalidOperationException("no key for this one");
        var probes = store.GetCollection<int, BufferProbe>("probes", p => p.Text == "bad" ? throw bad : p.Id);
        IEnumerable<BufferProbe> Source(int count, Action<int>? onRecord = null, int badAt = -1)
        {
            for (var i = 0; i < count; i++)
            {
                onRecord?.Invoke(i);
                yield return new BufferProbe(i, i == badAt ? "bad" : "imported");
            }
        }

        Assert.Same(bad, await Assert.ThrowsAsync<InvalidOperationException>(() => probes.BulkImportAsync(Source(50_000, badAt: 20_000))));
        var failing = new IOException("the source broke");
        Assert.Same(failing, await Assert.ThrowsAsync<IOException>(() => probes.BulkImportAsync(Source(50_000, i => { if (i == 30_000) { throw failing; } }))));
        using var cancel = new CancellationTokenSource();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => probes.BulkImportAsync(Source(50_000, i => { if (i == 25_000) { cancel.Cancel(); } }), null, cancel.Token));
    });
}
