using Stellar.Store.Storage;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Tests.Storage;

/// <summary>What only real files do: directories, leftovers on disk, and the operating system's own errors.</summary>
public sealed class FileStorageTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Constructor_MissingDirectory_CreatesItAndReportsFullPath()
    {
        var path = Path.Combine(_directory.Path, "saves", "world1");

        var storage = new FileStorage(path);

        Assert.True(Directory.Exists(path));
        Assert.Equal(Path.GetFullPath(path), storage.Location);
    }

    [Fact]
    public void ReplaceAtomically_WithLeftoverTempFile_OverwritesItAndRemovesIt()
    {
        var storage = new FileStorage(_directory.Path);
        File.WriteAllBytes(Path.Combine(_directory.Path, "manifest.tmp"), new byte[1000]);

        storage.ReplaceAtomically("manifest", [1, 2, 3]);

        Assert.Equal([1, 2, 3], File.ReadAllBytes(Path.Combine(_directory.Path, "manifest")));
        Assert.Equal(["manifest"], Directory.GetFiles(_directory.Path).Select(Path.GetFileName));
    }

    [Fact]
    public void List_WithSubdirectory_ReturnsFilesOnly()
    {
        var storage = new FileStorage(_directory.Path);
        Directory.CreateDirectory(Path.Combine(_directory.Path, "backup"));
        storage.Open("a").Dispose();

        Assert.Equal(["a"], storage.List());
    }

    [Fact]
    public void AcquireLock_Held_LeavesLockFileOnDiskAndKeepsItAfterRelease()
    {
        var storage = new FileStorage(_directory.Path);

        using (storage.AcquireLock())
        {
            Assert.True(File.Exists(Path.Combine(_directory.Path, StorageNames.LockFileName)));
        }

        // Deleting it on release would let an opener lock a fresh file while a late holder still has the old one.
        Assert.True(File.Exists(Path.Combine(_directory.Path, StorageNames.LockFileName)));
    }

    [SkippableFact]
    public void Append_OnFullDevice_ThrowsDiskFullIOException()
    {
        // /dev/full answers every write with ENOSPC: the real error, from the real kernel.
        if (!OperatingSystem.IsLinux() || !File.Exists("/dev/full"))
        {
            Skip.Because("needs Linux's /dev/full, which this machine does not have");
        }

        File.CreateSymbolicLink(Path.Combine(_directory.Path, "full"), "/dev/full");
        var storage = new FileStorage(_directory.Path);
        using var file = storage.Open("full");

        var error = Assert.Throws<IOException>(() => file.Append([1, 2, 3]));

        Assert.True(StorageErrors.IsDiskFull(error), error.ToString());
        Assert.Contains("No space left on device", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Rename_ThenReopen_SeesRenamedFile()
    {
        var storage = new FileStorage(_directory.Path);
        using (var file = storage.Open("shard.new"))
        {
            file.Append([9, 8, 7]);
            file.FlushToDisk();
        }

        storage.Rename("shard.new", "shard-0001");

        Assert.Equal(["shard-0001"], new FileStorage(_directory.Path).List());
        Assert.Equal([9, 8, 7], new FileStorage(_directory.Path).ReadAllBytes("shard-0001"));
    }
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void StartWriteback_BetweenAppends_LeavesEveryByteInOrderAndLaterFlushesWork(bool offThePool)
    {
        var storage = new FileStorage(_directory.Path, writebackOffThePool: offThePool);
        var expected = new List<byte>();
        using (var file = storage.Open("shard"))
        {
            for (var i = 0; i < 200; i++)
            {
                var chunk = Enumerable.Range(0, 4096).Select(b => (byte)(b + i)).ToArray();
                file.Append(chunk);
                expected.AddRange(chunk);
                file.StartWriteback();
            }

            file.FlushToDisk();
            file.Append([1, 2, 3]);
            expected.AddRange([1, 2, 3]);
            file.StartWriteback();
        }

        Assert.Equal(expected, storage.ReadAllBytes("shard"));
    }
}
