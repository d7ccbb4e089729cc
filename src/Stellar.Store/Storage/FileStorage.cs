namespace Stellar.Store.Storage;

/// <summary>
/// The <see cref="IStorage"/> of a real directory, created when missing. On Unix the directory and every file it
/// creates are private to their owner (see <see cref="PrivateFiles"/>). Every change to the directory that must
/// survive a crash of the machine (<see cref="ReplaceAtomically"/>, <see cref="Rename"/>, a file's first flush)
/// fsyncs the directory as well as the file.
/// </summary>
/// <remarks>
/// <para>Thread safety: every member may be called from any thread; the files it opens follow
/// <see cref="IStorageFile"/>'s single-writer rule.</para>
/// <para><see cref="List"/> returns every regular file, temporary files of an interrupted
/// <see cref="ReplaceAtomically"/> included (the engine decides what is garbage), except the lock file, which
/// belongs to the storage (see <see cref="StorageNames.LockFileName"/>).</para>
/// <para><see cref="Delete"/> does not fsync the directory: after a crash of the machine a deleted file may be
/// back, which is safe as long as deleted files are garbage that the engine deletes again.</para>
/// </remarks>
internal sealed class FileStorage : IStorage
{
    private readonly bool _writebackOffThePool;

    /// <summary>
    /// Uses the directory at <paramref name="directory"/>, creating it when it does not exist. With
    /// <paramref name="writebackOffThePool"/>, its files' background fsyncs (<see cref="IStorageFile.StartWriteback"/>)
    /// run on threads of their own rather than the pool's (see <see cref="StoreOptions.DedicatedThreads"/>).
    /// </summary>
    public FileStorage(string directory, bool writebackOffThePool = false)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Location = Path.GetFullPath(directory);
        _writebackOffThePool = writebackOffThePool;
        PrivateFiles.CreateDirectory(Location);
    }

    /// <inheritdoc />
    /// <remarks>The directory's full path.</remarks>
    public string Location { get; }

    /// <inheritdoc />
    public IStorageFile Open(string name)
    {
        StorageNames.Validate(name, nameof(name));
        return FileStorageFile.OpenWritable(Location, name, _writebackOffThePool);
    }

    /// <inheritdoc />
    public IStorageFile OpenRead(string name)
    {
        StorageNames.Validate(name, nameof(name));
        return FileStorageFile.OpenReadOnly(Location, name);
    }

    /// <inheritdoc />
    public bool Exists(string name)
    {
        StorageNames.Validate(name, nameof(name));
        return File.Exists(PathOf(name));
    }

    /// <inheritdoc />
    /// <remarks>Sorted by ordinal comparison, so that the order does not depend on the file system.</remarks>
    public IReadOnlyList<string> List()
    {
        var names = new List<string>();
        foreach (var path in Directory.EnumerateFiles(Location))
        {
            var name = Path.GetFileName(path);
            if (!string.Equals(name, StorageNames.LockFileName, StringComparison.OrdinalIgnoreCase))
            {
                names.Add(name);
            }
        }

        names.Sort(StringComparer.Ordinal);
        return names;
    }

    /// <inheritdoc />
    public void Delete(string name)
    {
        StorageNames.Validate(name, nameof(name));
        File.Delete(PathOf(name));
    }

    /// <inheritdoc />
    public byte[] ReadAllBytes(string name)
    {
        StorageNames.Validate(name, nameof(name));
        return File.ReadAllBytes(PathOf(name));
    }

    /// <inheritdoc />
    /// <remarks>
    /// Writes <c>name + ".tmp"</c>, fsyncs it, moves it over the target, then fsyncs the directory. When a step
    /// fails, the target is untouched and the temporary file is deleted if it can be.
    /// </remarks>
    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content)
    {
        StorageNames.Validate(name, nameof(name));
        var target = PathOf(name);
        var temp = target + StorageNames.TempSuffix;
        try
        {
            using (var file = PrivateFiles.Open(temp, FileMode.Create, FileAccess.Write, FileShare.None))
            {
                var handle = file.SafeFileHandle;
                RandomAccess.Write(handle, content, 0);
                RandomAccess.FlushToDisk(handle);
            }

            File.Move(temp, target, overwrite: true);
        }
        catch
        {
            TryDelete(temp);
            throw;
        }

        DirectorySync.Flush(Location);
    }

    /// <inheritdoc />
    /// <remarks>Replaces <paramref name="to"/> when it exists, as POSIX rename does.</remarks>
    public void Rename(string from, string to)
    {
        StorageNames.Validate(from, nameof(from));
        StorageNames.Validate(to, nameof(to));
        File.Move(PathOf(from), PathOf(to), overwrite: true);
        DirectorySync.Flush(Location);
    }

    /// <inheritdoc />
    /// <remarks>
    /// Takes an exclusive operating-system lock on the lock file (see <see cref="FileLock"/>): it conflicts with every
    /// other holder, in this process or another, and dies with the process. The lock file is never deleted, since
    /// deleting it would let a second opener lock a new file while the first still holds the old one.
    /// </remarks>
    public IDisposable AcquireLock() => FileLock.Acquire(PathOf(StorageNames.LockFileName), Location);

    /// <inheritdoc />
    public string? FilePath(string name)
    {
        StorageNames.Validate(name, nameof(name));
        return PathOf(name);
    }

    private string PathOf(string name) => Path.Combine(Location, name);

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (IOException)
        {
            // The original failure is the one to report; a leftover temporary file is garbage the engine can list.
        }
        catch (UnauthorizedAccessException)
        {
            // As above.
        }
    }
}
