using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>A cancellation token is honoured until the write is queued: a cancelled write is never stored, and never half.</summary>
public sealed class CancellationTests
{
    public static TheoryData<string> Writes() => new()
    {
        "insert", "update", "upsert", "delete", "batch", "import", "async import",
    };

    private static Task Write(Collection<int, Player> players, string write, CancellationToken token) => write switch
    {
        "insert" => players.InsertAsync(new Player(2, "new", 1, 1), token),
        "update" => players.UpdateAsync(new Player(1, "changed", 1, 1), token),
        "upsert" => players.UpsertAsync(new Player(1, "changed", 1, 1), token),
        "delete" => players.DeleteAsync(1, token),
        "batch" => players.WriteAsync(b => b.Upsert(new Player(1, "changed", 1, 1)).Insert(new Player(2, "new", 1, 1)), token),
        "import" => players.BulkImportAsync([new Player(1, "changed", 1, 1), new Player(2, "new", 1, 1)], null, token),
        "async import" => players.BulkImportAsync(IgnoresCancellation(), null, token),
        _ => throw new ArgumentOutOfRangeException(nameof(write), write, null),
    };

    /// <summary>A source that never looks at the token: the import itself must.</summary>
    private static async IAsyncEnumerable<Player> IgnoresCancellation()
    {
        await Task.Yield();
        yield return new Player(1, "changed", 1, 1);
        yield return new Player(2, "new", 1, 1);
    }

    [Theory]
    [MemberData(nameof(Writes))]
    public async Task Write_WithAnAlreadyCancelledToken_ThrowsAndWritesNothing(string write)
    {
        var faults = new FaultInjectingStorage(new MemoryStorage());
        await using (var store = await StellarStore.OpenAsync(faults))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.InsertAsync(new Player(1, "original", 1, 1));
            var appends = faults.AppendCount;
            var operations = faults.OperationCount;

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Write(players, write, new CancellationToken(canceled: true)));

            Assert.Equal(appends, faults.AppendCount);
            Assert.Equal(operations, faults.OperationCount);
            Assert.Equal(1L, players.Count);
            Assert.Equal("original", players.Get(1)!.Name);

            // The collection is unharmed: the same write with a live token goes through.
            await Write(players, write, CancellationToken.None);
            Assert.NotEqual(appends, faults.AppendCount);
        }
    }

    /// <summary>
    /// With a queue of one write kept busy by large writes, tokens cancelled while their writes may be waiting for
    /// a slot: each such write either fails with a cancellation and is absent, or completes and is stored.
    /// </summary>
    [Fact]
    public async Task Write_CancelledWhileWaitingForAQueueSlot_IsEitherStoredOrAbsentNeverBoth()
    {
        var storage = new MemoryStorage();
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { MaxQueuedWrites = 1, Compression = Compression.Lz4 });
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        var random = new Random(3);
        int cancelled = 0, stored = 0;
        for (var round = 0; round < 50; round++)
        {
            var voxels = new byte[256 * 1024];
            random.NextBytes(voxels);
            var busy = chunks.UpsertAsync(new Chunk { Id = "busy", Voxels = voxels });
            using var cancel = new CancellationTokenSource();
            var key = $"k{round}";
            var write = chunks.InsertAsync(new Chunk { Id = key, Voxels = [(byte)round] }, cancel.Token);
            cancel.Cancel();
            try
            {
                await write;
                stored++;
                Assert.Equal((byte)round, chunks.Get(key)!.Voxels[0]);
            }
            catch (OperationCanceledException)
            {
                cancelled++;
                Assert.Null(chunks.Get(key));
            }

            await busy;
        }

        Assert.Equal(50, cancelled + stored);
        Assert.True(cancelled > 0, "no write was still waiting for its slot when cancelled; the test proved nothing");
        Assert.Equal(stored + 1, chunks.Count);
    }
}
