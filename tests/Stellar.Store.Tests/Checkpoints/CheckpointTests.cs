using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Expiry;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// Checkpoints on real files: each is checked against the test's own dictionary of what was acknowledged before it
/// was taken, never against the store that took it.
/// </summary>
public sealed class CheckpointTests
{
    private static readonly StoreOptions Small = new() { MaxShardBytes = 64 * 1024 };

    [Fact]
    public async Task Checkpoint_HoldsEveryWriteAcknowledgedBeforeIt_AndNoneAfter()
    {
        using var dir = new TempDirectory();
        var model = new Dictionary<int, long>();
        CheckpointInfo checkpoint;
        await using (var store = await StellarStore.OpenAsync(dir.Sub("store"), Small))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            for (var i = 0; i < 3_000; i++)
            {
                await accounts.UpsertAsync(new Account(i % 700, i));
                model[i % 700] = i;
            }

            await accounts.DeleteAsync(5);
            model.Remove(5);
            checkpoint = await store.CheckpointAsync("before-the-raid");

            // After the checkpoint: none of this may reach it.
            await accounts.UpsertAsync(new Account(1, -1));
            await accounts.DeleteAsync(2);
            await accounts.InsertAsync(new Account(10_000, 1));
            Assert.True(checkpoint.SharedBytes > 0, "sealed shards are shared, not copied");
        }

        // A store's files and the description, and nothing the making of it used on the way (temporary names, probes).
        Assert.All(Directory.EnumerateFileSystemEntries(checkpoint.Path).Select(Path.GetFileName), name =>
            Assert.True(name is "MANIFEST" or "CHECKPOINT" || name!.EndsWith(".shard", StringComparison.Ordinal), $"unexpected '{name}' in the checkpoint"));

        await using var opened = await StellarStore.OpenReadOnlyAsync(checkpoint.Path);
        var then = opened.GetCollection<int, Account>("accounts", a => a.Id);
        Assert.Equal(model.OrderBy(p => p.Key), then.Query(_ => true).Select(a => KeyValuePair.Create(a.Id, a.Gold)).OrderBy(p => p.Key));
    }

    [Fact]
    public async Task Checkpoints_TakenWhileUnitsMoveGold_EachHoldTheSameTotal_AndEveryAcknowledgedUnit()
    {
        using var dir = new TempDirectory();
        const int Players = 20;
        const long Start = 1_000;
        var checkpoints = new List<(CheckpointInfo Info, long[] AcknowledgedMoves)>();
        await using (var store = await StellarStore.OpenAsync(dir.Sub("store"), Small))
        {
            var bank = store.GetCollection<int, Account>("bank", a => a.Id);
            var purses = store.GetCollection<int, Account>("purses", a => a.Id);
            await store.WriteAsync(tx =>
            {
                for (var p = 0; p < Players; p++)
                {
                    tx.In(bank).Insert(new Account(p, Start));
                    tx.In(purses).Insert(new Account(p, 0));
                }
            });

            // Each mover owns one player: it moves one gold from the bank to the purse per unit, and counts the units
            // acknowledged, so the purse of a player in a checkpoint is at least what was acknowledged before it.
            var acknowledged = new long[4];
            using var stop = new CancellationTokenSource();
            var movers = Enumerable.Range(0, acknowledged.Length).Select(m => Task.Run(async () =>
            {
                var moved = 0L;
                while (!stop.IsCancellationRequested)
                {
                    moved++;
                    await store.WriteAsync(tx =>
                    {
                        tx.In(bank).Upsert(new Account(m, Start - moved));
                        tx.In(purses).Upsert(new Account(m, moved));
                    });
                    Volatile.Write(ref acknowledged[m], moved);
                }
            })).ToList();

            // Plain writes to both collections meanwhile, so that shards roll and the cut meets sealed and active shards.
            var noise = Task.Run(async () =>
            {
                for (var i = 0; !stop.IsCancellationRequested; i++)
                {
                    await bank.UpsertAsync(new Account(Players + (i % 300), 0));
                }
            });

            for (var c = 0; c < 6; c++)
            {
                await Task.Delay(30);
                var before = acknowledged.Select(a => Volatile.Read(ref a)).ToArray();
                checkpoints.Add((await store.CheckpointAsync($"cut-{c}"), before));
            }

            await stop.CancelAsync();
            await Task.WhenAll(movers.Append(noise));
        }

        foreach (var (info, before) in checkpoints)
        {
            await using var opened = await StellarStore.OpenReadOnlyAsync(info.Path);
            var bank = opened.GetCollection<int, Account>("bank", a => a.Id);
            var purses = opened.GetCollection<int, Account>("purses", a => a.Id);
            for (var p = 0; p < Players; p++)
            {
                var total = bank.Get(p)!.Gold + purses.Get(p)!.Gold;
                Assert.True(total == Start, $"{info.Name}: player {p} holds {total} gold in all, not {Start}: a unit is in the cut in one collection only");
                if (p < before.Length)
                {
                    Assert.True(purses.Get(p)!.Gold >= before[p], $"{info.Name}: player {p} moved {before[p]} before the call, the cut holds {purses.Get(p)!.Gold}");
                }
            }
        }
    }

    [Fact]
    public async Task Checkpoint_SurvivesACompactionThatDeletesItsShardsFromTheStore()
    {
        using var dir = new TempDirectory();
        var options = Small;
        var model = new Dictionary<int, long>();
        CheckpointInfo checkpoint;
        await using (var store = await StellarStore.OpenAsync(dir.Sub("store"), options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            for (var i = 0; i < 4_000; i++)
            {
                await accounts.UpsertAsync(new Account(i % 50, i));
                model[i % 50] = i;
            }

            checkpoint = await store.CheckpointAsync("c");
            for (var i = 0; i < 4_000; i++)
            {
                await accounts.UpsertAsync(new Account(i % 50, -i));
            }

            await accounts.CompactAsync();
            Assert.True(accounts.Statistics.Compactions > 0);
        }

        // A store's files and the description, and nothing the making of it used on the way (temporary names, probes).
        Assert.All(Directory.EnumerateFileSystemEntries(checkpoint.Path).Select(Path.GetFileName), name =>
            Assert.True(name is "MANIFEST" or "CHECKPOINT" || name!.EndsWith(".shard", StringComparison.Ordinal), $"unexpected '{name}' in the checkpoint"));

        await using var opened = await StellarStore.OpenReadOnlyAsync(checkpoint.Path);
        var then = opened.GetCollection<int, Account>("accounts", a => a.Id);
        Assert.Equal(model.OrderBy(p => p.Key), then.Query(_ => true).Select(a => KeyValuePair.Create(a.Id, a.Gold)).OrderBy(p => p.Key));
    }

    [Fact]
    public async Task CheckpointAfterCheckpoint_CopiesOnlyWhatWasWrittenBetween()
    {
        using var dir = new TempDirectory();
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), Small);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.BulkImportAsync(Enumerable.Range(0, 50_000).Select(i => new Account(i, i)));
        var first = await store.CheckpointAsync("first");
        var before = Directory.EnumerateFiles(dir.Sub("store"), "*.shard").Sum(f => new FileInfo(f).Length);
        for (var i = 0; i < 10; i++)
        {
            await accounts.UpsertAsync(new Account(i, -i));
        }

        var written = Directory.EnumerateFiles(dir.Sub("store"), "*.shard").Sum(f => new FileInfo(f).Length) - before;
        var second = await store.CheckpointAsync("second");

        var stored = Directory.EnumerateFiles(dir.Sub("store"), "*.shard").Sum(f => new FileInfo(f).Length);
        Assert.Equal(stored, second.SharedBytes + second.CopiedBytes);
        Assert.True(first.CopiedBytes > Small.MaxShardBytes / 16, "the first checkpoint copied a large active shard");

        // That shard was sealed at the next write, so the second checkpoint copies only the shard written since.
        Assert.True(second.CopiedBytes <= written, $"copied {second.CopiedBytes} bytes; {written} were written since the first checkpoint");
        Assert.True(second.SharedBytes > 4 * Small.MaxShardBytes, "the sealed shards are shared");
        Assert.Equal(["first", "second"], store.Checkpoints().Select(c => c.Name));
        Assert.Equal(["first", "second"], StellarStore.ListCheckpoints(dir.Sub("store")).Select(c => c.Name));
        Assert.True(first.WriterPause > TimeSpan.Zero);
    }

    [Fact]
    public async Task OpenReadOnly_RefusesWrites_AndLeavesTheCheckpointAsItWas()
    {
        using var dir = new TempDirectory();
        CheckpointInfo checkpoint;
        await using (var store = await StellarStore.OpenAsync(dir.Sub("store"), Small))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.BulkImportAsync(Enumerable.Range(0, 5_000).Select(i => new Account(i, i)));
            checkpoint = await store.CheckpointAsync("c");
        }

        var files = Snapshot(checkpoint.Path);
        await using (var opened = await StellarStore.OpenReadOnlyAsync(checkpoint.Path))
        {
            Assert.True(opened.IsReadOnly);
            var accounts = opened.GetCollection<int, Account>("accounts", a => a.Id);
            Assert.Equal(5_000, accounts.Count);
            await Assert.ThrowsAsync<InvalidOperationException>(() => accounts.UpsertAsync(new Account(1, 2)));
            await Assert.ThrowsAsync<InvalidOperationException>(() => accounts.DeleteAsync(1));
            await Assert.ThrowsAsync<InvalidOperationException>(() => accounts.WriteAsync(b => b.Upsert(new Account(1, 2))));
            await Assert.ThrowsAsync<InvalidOperationException>(() => opened.CheckpointAsync("nested"));
        }

        Assert.Equal(files, Snapshot(checkpoint.Path));
        Assert.Equal(["c"], Directory.EnumerateDirectories(Path.GetDirectoryName(checkpoint.Path)!).Select(Path.GetFileName));
    }

    [Fact]
    public async Task Restore_MakesAWritableStore_ThatChangesNeitherTheCheckpointNorTheStore()
    {
        using var dir = new TempDirectory();
        var key = new byte[32];
        Random.Shared.NextBytes(key);
        var options = new StoreOptions { MaxShardBytes = Small.MaxShardBytes, EncryptionKey = key };
        CheckpointInfo checkpoint;
        await using (var store = await StellarStore.OpenAsync(dir.Sub("store"), options))
        {
            var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
            await accounts.BulkImportAsync(Enumerable.Range(0, 5_000).Select(i => new Account(i, i)));
            await accounts.UpsertAsync(new Account(7, 7_000));
            checkpoint = await store.CheckpointAsync("c");
        }

        var checkpointFiles = Snapshot(checkpoint.Path);
        var storeFiles = Snapshot(dir.Sub("store"));
        await StellarStore.RestoreAsync(checkpoint.Path, dir.Sub("restored"));
        await using (var restored = await StellarStore.OpenAsync(dir.Sub("restored"), options))
        {
            var accounts = restored.GetCollection<int, Account>("accounts", a => a.Id);
            Assert.Equal(new Account(7, 7_000), accounts.Get(7));
            for (var i = 0; i < 3_000; i++)
            {
                await accounts.UpsertAsync(new Account(i, -i));
            }

            await accounts.CompactAsync();
        }

        await using (var reopened = await StellarStore.OpenAsync(dir.Sub("restored"), options))
        {
            Assert.Equal(new Account(7, -7), reopened.GetCollection<int, Account>("accounts", a => a.Id).Get(7));
        }

        Assert.Equal(checkpointFiles, Snapshot(checkpoint.Path));
        Assert.Equal(storeFiles.Where(f => f.Key.EndsWith(".shard", StringComparison.Ordinal)), Snapshot(dir.Sub("store")).Where(f => f.Key.EndsWith(".shard", StringComparison.Ordinal)));
        await Assert.ThrowsAsync<WrongKeyException>(() => StellarStore.OpenReadOnlyAsync(checkpoint.Path, new StoreOptions { EncryptionKey = new byte[32] }));
        await Assert.ThrowsAsync<IOException>(() => StellarStore.RestoreAsync(checkpoint.Path, dir.Sub("restored")));
    }

    [Fact]
    public async Task Rollback_RestoresChosenKeysOnly_InOneBatch()
    {
        using var dir = new TempDirectory();
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), Small);
        var items = store.GetCollection<int, Account>("items", a => a.Id);
        for (var i = 0; i < 10; i++)
        {
            await items.InsertAsync(new Account(i, i));
        }

        var checkpoint = await store.CheckpointAsync("before-exploit");

        // The exploit: item 3 duplicated into 100 and 101, item 4 changed, item 5 deleted; item 6 changed legitimately.
        await items.InsertAsync(new Account(100, 3));
        await items.InsertAsync(new Account(101, 3));
        await items.UpsertAsync(new Account(4, 4_000));
        await items.DeleteAsync(5);
        await items.UpsertAsync(new Account(6, 60));

        await using (var then = await StellarStore.OpenReadOnlyAsync(checkpoint.Path))
        {
            Assert.Equal(4, await items.RollbackAsync(then, [100, 101, 4, 5, 4]));
        }

        Assert.Null(items.Get(100));
        Assert.Null(items.Get(101));
        Assert.Equal(new Account(4, 4), items.Get(4));
        Assert.Equal(new Account(5, 5), items.Get(5));
        Assert.Equal(new Account(6, 60), items.Get(6));
    }

    [Fact]
    public async Task Retention_KeepsTheNewest_AndOnePerPeriod()
    {
        using var dir = new TempDirectory();
        var clock = new TestClock();
        var options = new StoreOptions
        {
            MaxShardBytes = Small.MaxShardBytes,
            Clock = clock,
            CheckpointRetention = new CheckpointRetention { KeepLast = 2, Tiers = [new CheckpointTier(TimeSpan.FromHours(1), TimeSpan.FromHours(3))] },
        };
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);

        // A checkpoint every 20 minutes for 5 hours; the model keeps the last two and the newest of each of the hours
        // that began within 3 hours of now.
        var taken = new List<(string Name, DateTimeOffset At)>();
        for (var i = 0; i < 15; i++)
        {
            await accounts.UpsertAsync(new Account(i, i));
            await store.CheckpointAsync($"c{i:d2}");
            taken.Add(($"c{i:d2}", clock.GetUtcNow()));
            clock.Advance(TimeSpan.FromMinutes(20));
        }

        clock.Advance(TimeSpan.FromMinutes(-20));
        var now = clock.GetUtcNow();
        var expected = taken.TakeLast(2).Select(t => t.Name).ToHashSet();
        foreach (var hour in taken.Where(t => now - t.At <= TimeSpan.FromHours(3)).GroupBy(t => t.At.UtcTicks / TimeSpan.TicksPerHour))
        {
            expected.Add(hour.MaxBy(t => t.At).Name);
        }

        Assert.Equal(expected.Order(), store.Checkpoints().Select(c => c.Name).Order());
        Assert.True(store.DeleteCheckpoint("c14"));
        Assert.False(store.DeleteCheckpoint("c14"));
    }

    [Fact]
    public async Task Retention_AlwaysKeepsTheCheckpointJustTaken_WhenTheClockReadsTheSameOrWasSetBack()
    {
        using var dir = new TempDirectory();
        var clock = new TestClock();
        var options = new StoreOptions { MaxShardBytes = Small.MaxShardBytes, Clock = clock, CheckpointRetention = new CheckpointRetention { KeepLast = 1 } };
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), options);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);

        // The same time, and a name that sorts before the older one's; then the clock set back, as a time sync does.
        await accounts.UpsertAsync(new Account(1, 1));
        await store.CheckpointAsync("zz-first");
        await accounts.UpsertAsync(new Account(1, 2));
        var second = await store.CheckpointAsync("aa-second");
        Assert.Equal(["aa-second"], store.Checkpoints().Select(c => c.Name));
        clock.SetBack(TimeSpan.FromMinutes(5));
        await accounts.UpsertAsync(new Account(1, 3));
        var third = await store.CheckpointAsync("third");
        Assert.False(Directory.Exists(second.Path));

        Assert.Equal(["third"], store.Checkpoints().Select(c => c.Name));
        await using var kept = await StellarStore.OpenReadOnlyAsync(third.Path, options);
        Assert.Equal(new Account(1, 3), kept.GetCollection<int, Account>("accounts", a => a.Id).Get(1));
    }

    [Fact]
    public async Task BadRequests_GetClearErrors_AndLeaveTheStoreWorking()
    {
        using var dir = new TempDirectory();
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), Small);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.InsertAsync(new Account(1, 1));
        await store.CheckpointAsync("c");
        await Assert.ThrowsAsync<InvalidOperationException>(() => store.CheckpointAsync("c"));
        foreach (var bad in new[] { "", "../escape", "a/b", ".hidden", "x.partial", "CON", new string('a', 65) })
        {
            await Assert.ThrowsAsync<ArgumentException>(() => store.CheckpointAsync(bad));
        }

        await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenReadOnlyAsync(dir.Sub("store")));
        await accounts.InsertAsync(new Account(2, 2));

        await using var memory = await new MemoryStorage().OpenStoreAsync();
        await Assert.ThrowsAsync<NotSupportedException>(() => memory.CheckpointAsync("c"));
    }

    [Fact]
    public async Task ACheckpointThatCannotBeFinished_FailsAlone_LeavesNothing_AndTheStoreGoesOn()
    {
        using var dir = new TempDirectory();
        await using var store = await StellarStore.OpenAsync(dir.Sub("store"), Small);
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        await accounts.BulkImportAsync(Enumerable.Range(0, 5_000).Select(i => new Account(i, i)));

        // A file where the checkpoint's directory must go: the cut and the copy succeed, the final rename cannot.
        Directory.CreateDirectory(store.CheckpointsPath);
        await File.WriteAllTextAsync(Path.Combine(store.CheckpointsPath, "c"), "in the way");
        await Assert.ThrowsAnyAsync<IOException>(() => store.CheckpointAsync("c"));
        Assert.Equal(["c"], Directory.EnumerateFileSystemEntries(store.CheckpointsPath).Select(Path.GetFileName));
        Assert.Empty(store.Checkpoints());

        await accounts.InsertAsync(new Account(-1, 1));
        var checkpoint = await store.CheckpointAsync("d");
        await using var opened = await StellarStore.OpenReadOnlyAsync(checkpoint.Path);
        Assert.Equal(5_001, opened.GetCollection<int, Account>("accounts", a => a.Id).Count);
    }

    /// <summary>Every file of a directory and a hash of its bytes.</summary>
    private static SortedDictionary<string, string> Snapshot(string directory) => new(
        Directory.EnumerateFiles(directory).ToDictionary(f => Path.GetFileName(f)!, f => Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(f))))!,
        StringComparer.Ordinal);
}
