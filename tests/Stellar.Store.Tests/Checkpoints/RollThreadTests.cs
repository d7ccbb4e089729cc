using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// Where a group that starts a new shard runs: a checkpoint makes every collection written since roll at its next
/// group, whose fsyncs wait on the device, so in every durability mode that group commits on the collection's own
/// device thread, never on a pool thread the game's work needs.
/// </summary>
public sealed class RollThreadTests
{
    [Theory]
    [InlineData(Durability.Buffered)]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task TheGroupAfterACheckpoint_StartsItsShardOnTheDeviceThread(Durability durability)
    {
        using var dir = new TempDirectory();
        var storage = new ShardCreationThreads(new FileStorage(dir.Sub("store")));
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions { Durability = durability });
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);

        // The collection's first shard is made at its load, before its writer starts.
        await accounts.UpsertAsync(new Account(-1, 0));
        storage.Threads.Clear();
        for (var round = 0; round < 3; round++)
        {
            await accounts.UpsertAsync(new Account(round, round));
            await store.CheckpointAsync($"c{round}");
        }

        await accounts.UpsertAsync(new Account(99, 99));
        var created = storage.Threads.ToArray();
        Assert.True(created.Length >= 3, $"each write after a checkpoint starts a shard; {created.Length} were created");
        Assert.All(created, name => Assert.StartsWith("stellar-fsync-", name ?? "a pool thread", StringComparison.Ordinal));
    }

    /// <summary>Real storage that notes the name of the thread that creates each shard file.</summary>
    private sealed class ShardCreationThreads(IStorage inner) : ForwardingStorage(inner)
    {
        public System.Collections.Concurrent.ConcurrentQueue<string?> Threads { get; } = new();

        public override IStorageFile Open(string name)
        {
            var exists = Exists(name);
            var file = base.Open(name);
            if (!exists && name.EndsWith(".shard", StringComparison.Ordinal))
            {
                Threads.Enqueue(Thread.CurrentThread.Name);
            }

            return file;
        }
    }
}
