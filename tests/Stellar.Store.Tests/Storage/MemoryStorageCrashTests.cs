using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

public sealed class MemoryStorageCrashTests
{
    private static readonly byte[] Flushed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    private static readonly byte[] Unflushed = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];
    private static readonly byte[] Appended = [.. Flushed, .. Unflushed];

    [Fact]
    public void SimulateCrash_OfProcess_KeepsEveryAppendedByte()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();

        storage.SimulateCrash(losesUnsyncedData: false);

        Assert.Equal(Appended, storage.ReadAllBytes("a"));
    }

    [Fact]
    public void SimulateCrash_OfMachine_CutsFileToLastFlush()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();

        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.Equal(Flushed, storage.ReadAllBytes("a"));
    }

    [Fact]
    public void SimulateCrash_OfMachineWithTornTail_KeepsPrefixOfUnflushedBytes()
    {
        var lengths = new HashSet<int>();
        for (int seed = 0; seed < 64; seed++)
        {
            var storage = StorageWithFlushedAndUnflushedBytes();

            storage.SimulateCrash(losesUnsyncedData: true, new Random(seed));

            var survived = storage.ReadAllBytes("a");
            Assert.InRange(survived.Length, Flushed.Length, Flushed.Length + Unflushed.Length);
            Assert.Equal(Appended[..survived.Length], survived);
            lengths.Add(survived.Length);
        }

        Assert.True(lengths.Count > 2, "the torn tail must vary with the seed");
    }

    [Fact]
    public void SimulateCrash_OfProcessThenMachine_RemembersWhatWasFlushed()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();

        storage.SimulateCrash(losesUnsyncedData: false);
        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.Equal(Flushed, storage.ReadAllBytes("a"));
    }

    [Fact]
    public void SimulateCrash_OfMachine_DropsNewFileThatWasNeverFlushed()
    {
        var storage = new MemoryStorage();
        using (var file = storage.Open("new"))
        {
            file.Append(Unflushed);
        }

        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.False(storage.Exists("new"));
        Assert.Empty(storage.List());
    }

    [Fact]
    public void SimulateCrash_OfMachine_UndoesDeleteNotFollowedByDirectoryFlush()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();
        storage.Delete("a");

        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.Equal(Flushed, storage.ReadAllBytes("a"));
    }

    [Fact]
    public void SimulateCrash_OfProcess_KeepsDelete()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();
        storage.Delete("a");

        storage.SimulateCrash(losesUnsyncedData: false);

        Assert.False(storage.Exists("a"));
    }

    [Fact]
    public void SimulateCrash_OfMachine_KeepsReplacedAndRenamedFiles()
    {
        var storage = new MemoryStorage();
        storage.ReplaceAtomically("manifest", Flushed);
        storage.ReplaceAtomically("manifest", Unflushed);
        storage.ReplaceAtomically("shard.new", Flushed);
        storage.Rename("shard.new", "shard");

        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.Equal(["manifest", "shard"], storage.List());
        Assert.Equal(Unflushed, storage.ReadAllBytes("manifest"));
        Assert.Equal(Flushed, storage.ReadAllBytes("shard"));
    }

    [Fact]
    public void SimulateCrash_OfMachine_KeepsTruncation()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();
        using (var file = storage.Open("a"))
        {
            file.FlushToDisk();
            file.Truncate(4);
        }

        storage.SimulateCrash(losesUnsyncedData: true);

        Assert.Equal(Flushed[..4], storage.ReadAllBytes("a"));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SimulateCrash_Any_ReleasesLockAndFailsOldHandles(bool losesUnsyncedData)
    {
        var storage = StorageWithFlushedAndUnflushedBytes();
        var oldLock = storage.AcquireLock();
        using var oldFile = storage.Open("a");

        storage.SimulateCrash(losesUnsyncedData);

        using var newLock = storage.AcquireLock();
        Assert.Throws<IOException>(() => oldFile.Append(Flushed));
        Assert.Throws<IOException>(() => oldFile.ReadAt(0, new byte[1]));
        oldLock.Dispose();
        Assert.Throws<StoreLockedException>(() => storage.AcquireLock());
    }

    [Fact]
    public void SimulateCrash_OfMachine_NewHandlesWorkOnSurvivingFiles()
    {
        var storage = StorageWithFlushedAndUnflushedBytes();

        storage.SimulateCrash(losesUnsyncedData: true);

        using var file = storage.Open("a");
        Assert.Equal(Flushed.Length, file.Length);
        file.Append(Unflushed);
        Assert.Equal(Appended, storage.ReadAllBytes("a"));
    }

    private static MemoryStorage StorageWithFlushedAndUnflushedBytes()
    {
        var storage = new MemoryStorage();
        using var file = storage.Open("a");
        file.Append(Flushed);
        file.FlushToDisk();
        file.Append(Unflushed);
        return storage;
    }
}
