using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>
/// The behaviour every <see cref="IStorage"/> and its files must share, written once and run against each
/// implementation by a subclass.
/// </summary>
public abstract class StorageContractTests : IDisposable
{
    private IStorage? _storage;

    private protected IStorage Storage => _storage ??= CreateStorage();

    /// <summary>A storage over a fresh, empty store.</summary>
    private protected abstract IStorage CreateStorage();

    /// <summary>Another storage over the same store, as the next process to open it would have.</summary>
    private protected abstract IStorage Reopen();

    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
    }

    [Fact]
    public void Open_NewName_CreatesEmptyFile()
    {
        using var file = Storage.Open("a");

        Assert.Equal("a", file.Name);
        Assert.Equal(0, file.Length);
        Assert.True(Storage.Exists("a"));
        Assert.Equal(0, file.ReadAt(0, new byte[8]));
    }

    [Fact]
    public void Append_ThenReadAt_ReturnsEveryByteAndLength()
    {
        using var file = Storage.Open("a");

        file.Append(Pattern(0, 100));
        file.Append(Pattern(100, 50));

        Assert.Equal(150, file.Length);
        Assert.Equal(Pattern(0, 150), ReadAll(file));
    }

    [Fact]
    public void Append_Empty_LeavesLengthAlone()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 10));

        file.Append([]);

        Assert.Equal(10, file.Length);
    }

    [Fact]
    public void ReadAt_AtOffset_ReturnsBytesFromThere()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 100));
        var buffer = new byte[20];

        int read = file.ReadAt(30, buffer);

        Assert.Equal(20, read);
        Assert.Equal(Pattern(30, 20), buffer);
    }

    [Fact]
    public void ReadAt_AcrossEnd_ReturnsShortCount()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 100));
        var buffer = new byte[50];

        int read = file.ReadAt(80, buffer);

        Assert.Equal(20, read);
        Assert.Equal(Pattern(80, 20), buffer[..20]);
    }

    [Fact]
    public void ReadAt_AtOrPastEnd_ReturnsZero()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 100));

        Assert.Equal(0, file.ReadAt(100, new byte[10]));
        Assert.Equal(0, file.ReadAt(1_000_000, new byte[10]));
    }

    [Fact]
    public void ReadAt_NegativeOffset_ThrowsArgumentOutOfRange()
    {
        using var file = Storage.Open("a");

        Assert.Throws<ArgumentOutOfRangeException>(() => file.ReadAt(-1, new byte[1]));
    }

    [Fact]
    public async Task ReadAt_WhileOwnerAppends_SeesEveryPublishedByte()
    {
        using var file = Storage.Open("a");
        const int Chunks = 2_000;
        const int ChunkSize = 61;
        var expected = Pattern(0, Chunks * ChunkSize);
        using var done = new CancellationTokenSource();

        var readers = Enumerable.Range(0, 3).Select(_ => Task.Run(() =>
        {
            var buffer = new byte[expected.Length];
            int checks = 0;
            while (!done.IsCancellationRequested || checks == 0)
            {
                // Whatever the length says was appended must be readable in full, and be exactly what was appended.
                long length = file.Length;
                int read = file.ReadAt(0, buffer.AsSpan(0, (int)length));
                Assert.Equal(length, read);
                Assert.True(buffer.AsSpan(0, read).SequenceEqual(expected.AsSpan(0, read)), $"bytes below length {length} differ");
                checks++;
            }

            return checks;
        })).ToArray();

        for (int i = 0; i < Chunks; i++)
        {
            file.Append(Pattern(i * ChunkSize, ChunkSize));
        }

        await done.CancelAsync();
        var checks = await Task.WhenAll(readers).WaitAsync(TimeSpan.FromMinutes(2));

        Assert.All(checks, count => Assert.True(count > 0));
        Assert.Equal(expected, ReadAll(file));
    }

    [Fact]
    public void FlushToDisk_AfterAppend_KeepsLengthAndBytes()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 64));

        file.FlushToDisk();

        Assert.Equal(64, file.Length);
        Assert.Equal(Pattern(0, 64), ReadAll(file));
    }

    [Fact]
    public void Truncate_ToShorterLength_CutsFileAndNextAppendFollowsIt()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 100));

        file.Truncate(40);

        Assert.Equal(40, file.Length);
        Assert.Equal(0, file.ReadAt(40, new byte[10]));
        file.Append(Pattern(40, 10));
        Assert.Equal(Pattern(0, 50), ReadAll(file));
    }

    [Fact]
    public void Truncate_PastLength_ThrowsArgumentOutOfRange()
    {
        using var file = Storage.Open("a");
        file.Append(Pattern(0, 10));

        Assert.Throws<ArgumentOutOfRangeException>(() => file.Truncate(11));
        Assert.Throws<ArgumentOutOfRangeException>(() => file.Truncate(-1));
        Assert.Equal(10, file.Length);
    }

    [Fact]
    public void Open_ExistingFile_KeepsContentAndAppendsAtEnd()
    {
        using (var file = Storage.Open("a"))
        {
            file.Append(Pattern(0, 10));
        }

        using var again = Storage.Open("a");
        Assert.Equal(10, again.Length);
        again.Append(Pattern(10, 5));
        Assert.Equal(Pattern(0, 15), ReadAll(again));
    }

    [Fact]
    public void Reopen_AfterDispose_SeesEveryAppendedByte()
    {
        using (var file = Storage.Open("a"))
        {
            file.Append(Pattern(0, 1000));
            file.FlushToDisk();
            file.Append(Pattern(1000, 24));
        }

        var reopened = Reopen();
        using var read = reopened.OpenRead("a");
        Assert.Equal(1024, read.Length);
        Assert.Equal(Pattern(0, 1024), ReadAll(read));
        Assert.Equal(Pattern(0, 1024), reopened.ReadAllBytes("a"));
    }

    [Fact]
    public void OpenRead_MissingFile_ThrowsFileNotFound()
    {
        Assert.Throws<FileNotFoundException>(() => Storage.OpenRead("missing"));
        Assert.False(Storage.Exists("missing"));
    }

    [Fact]
    public void OpenRead_WhileOwnerAppends_SeesNewBytesAndLength()
    {
        using var writer = Storage.Open("a");
        writer.Append(Pattern(0, 10));
        using var reader = Storage.OpenRead("a");

        writer.Append(Pattern(10, 10));

        Assert.Equal(20, reader.Length);
        Assert.Equal(Pattern(0, 20), ReadAll(reader));
    }

    [Fact]
    public void OpenRead_Mutation_ThrowsNotSupported()
    {
        using (var file = Storage.Open("a"))
        {
            file.Append(Pattern(0, 10));
        }

        using var read = Storage.OpenRead("a");
        Assert.Throws<NotSupportedException>(() => read.Append(Pattern(0, 1)));
        Assert.Throws<NotSupportedException>(() => read.FlushToDisk());
        Assert.Throws<NotSupportedException>(() => read.Truncate(0));
        Assert.Equal(10, read.Length);
    }

    [Fact]
    public void Append_AfterDispose_ThrowsObjectDisposed()
    {
        var file = Storage.Open("a");
        file.Dispose();

        Assert.Throws<ObjectDisposedException>(() => file.Append(Pattern(0, 1)));
    }

    [Fact]
    public void ReadAllBytes_MissingFile_ThrowsFileNotFound()
    {
        Assert.Throws<FileNotFoundException>(() => Storage.ReadAllBytes("missing"));
    }

    [Fact]
    public void ReplaceAtomically_NewName_CreatesFileWithContent()
    {
        Storage.ReplaceAtomically("manifest", Pattern(0, 33));

        Assert.Equal(Pattern(0, 33), Storage.ReadAllBytes("manifest"));
    }

    [Fact]
    public void ReplaceAtomically_ExistingFile_ReplacesContentAndLeavesNoTempFile()
    {
        Storage.ReplaceAtomically("manifest", Pattern(0, 100));

        Storage.ReplaceAtomically("manifest", Pattern(7, 5));

        Assert.Equal(Pattern(7, 5), Storage.ReadAllBytes("manifest"));
        Assert.Equal(["manifest"], Storage.List());
        Assert.Equal(Pattern(7, 5), Reopen().ReadAllBytes("manifest"));
    }

    [Fact]
    public void Rename_ExistingFile_MovesContent()
    {
        Storage.ReplaceAtomically("from", Pattern(0, 10));

        Storage.Rename("from", "to");

        Assert.False(Storage.Exists("from"));
        Assert.Equal(Pattern(0, 10), Storage.ReadAllBytes("to"));
    }

    [Fact]
    public void Rename_OntoExistingFile_ReplacesIt()
    {
        Storage.ReplaceAtomically("from", Pattern(0, 10));
        Storage.ReplaceAtomically("to", Pattern(50, 3));

        Storage.Rename("from", "to");

        Assert.Equal(["to"], Storage.List());
        Assert.Equal(Pattern(0, 10), Storage.ReadAllBytes("to"));
    }

    [Fact]
    public void Rename_MissingSource_ThrowsFileNotFound()
    {
        Assert.Throws<FileNotFoundException>(() => Storage.Rename("missing", "to"));
        Assert.False(Storage.Exists("to"));
    }

    [Fact]
    public void List_AfterCreatingFiles_ReturnsEveryNameInOrdinalOrder()
    {
        Storage.Open("shard-2").Dispose();
        Storage.ReplaceAtomically("b.tmp", Pattern(0, 1));
        Storage.Open("Manifest").Dispose();
        Storage.Open("shard-1").Dispose();

        Assert.Equal(["Manifest", "b.tmp", "shard-1", "shard-2"], Storage.List());
    }

    [Fact]
    public void List_EmptyStore_ReturnsNothing()
    {
        Assert.Empty(Storage.List());
    }

    [Fact]
    public void List_WhileLocked_LeavesOutLockFile()
    {
        Storage.Open("a").Dispose();
        using var held = Storage.AcquireLock();

        Assert.Equal(["a"], Storage.List());
    }

    [Fact]
    public void Delete_ExistingFile_RemovesIt()
    {
        Storage.Open("a").Dispose();
        Storage.Open("b").Dispose();

        Storage.Delete("a");

        Assert.False(Storage.Exists("a"));
        Assert.Equal(["b"], Storage.List());
    }

    [Fact]
    public void Delete_MissingFile_DoesNothing()
    {
        Storage.Delete("missing");

        Assert.Empty(Storage.List());
    }

    [Theory]
    [InlineData("")]
    [InlineData(".")]
    [InlineData("..")]
    [InlineData("dir/file")]
    [InlineData("dir\\file")]
    [InlineData("nul\0byte")]
    [InlineData("LOCK")]
    public void Open_NameThatIsNotAPlainFileName_ThrowsArgumentException(string name)
    {
        Assert.ThrowsAny<ArgumentException>(() => Storage.Open(name));
        Assert.ThrowsAny<ArgumentException>(() => Storage.ReplaceAtomically(name, Pattern(0, 1)));
        Assert.ThrowsAny<ArgumentException>(() => Storage.Delete(name));
    }

    [Fact]
    public void AcquireLock_WhenHeld_ThrowsStoreLockedException()
    {
        using var held = Storage.AcquireLock();

        var error = Assert.Throws<StoreLockedException>(() => Storage.AcquireLock());

        Assert.Equal(Storage.Location, error.Path);
    }

    [Fact]
    public void AcquireLock_WhenHeldThroughAnotherStorage_ThrowsStoreLockedException()
    {
        using var held = Storage.AcquireLock();

        Assert.Throws<StoreLockedException>(() => Reopen().AcquireLock());
    }

    [Fact]
    public void AcquireLock_AfterHolderDisposed_Succeeds()
    {
        var held = Storage.AcquireLock();
        held.Dispose();

        using var again = Reopen().AcquireLock();

        Assert.Throws<StoreLockedException>(() => Storage.AcquireLock());
    }

    /// <summary>Bytes whose value depends only on their position, so that any slice can be checked alone.</summary>
    private protected static byte[] Pattern(long offset, int count)
    {
        var bytes = new byte[count];
        for (int i = 0; i < count; i++)
        {
            bytes[i] = (byte)((offset + i) % 251);
        }

        return bytes;
    }

    private protected static byte[] ReadAll(IStorageFile file)
    {
        var buffer = new byte[file.Length];
        int read = file.ReadAt(0, buffer);
        Assert.Equal(buffer.Length, read);
        return buffer;
    }
}
