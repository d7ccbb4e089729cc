using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>
/// A store directory in memory, for fast tests, that models what survives a crash: open a store on it with
/// <see cref="OpenStoreAsync"/>, and <see cref="SimulateCrash"/> turns it into what a restarted process would find.
/// </summary>
/// <remarks>
/// <para>It keeps two views of the directory, as a file system does: the names as they are now, and the names as
/// of the last directory flush (<see cref="ReplaceAtomically"/>, <see cref="Rename"/>, or the first flush or
/// truncate through a file handle, exactly where <see cref="FileStorage"/> fsyncs the directory). Each file keeps
/// its appended bytes and the length at its last flush. A crash of the process keeps everything; a crash of the
/// machine keeps the flushed directory and each file's flushed bytes, so an unflushed new file vanishes and an
/// unflushed delete is undone.</para>
/// <para>The lock is this instance's own: a second <see cref="AcquireLock"/> on it fails until the first handle
/// is disposed or a crash is simulated. Two <see cref="MemoryStorage"/> instances never share files or locks.</para>
/// <para>Files have the same names, errors and ordering as <see cref="FileStorage"/>, except that no temporary
/// file is ever visible and the storage cannot run out of space (wrap it in <see cref="FaultInjectingStorage"/>).</para>
/// <para>Thread safety: every member may be called from any thread.</para>
/// </remarks>
public sealed class MemoryStorage : IStorage
{
    private readonly object _gate = new();
    private Dictionary<string, MemoryFileData> _files = new(StringComparer.Ordinal);
    private Dictionary<string, MemoryFileData> _durableFiles = new(StringComparer.Ordinal);
    private int _generation;
    private bool _locked;

    /// <summary>Creates an empty storage described as <paramref name="location"/> in error messages.</summary>
    public MemoryStorage(string location = "memory")
    {
        ArgumentException.ThrowIfNullOrEmpty(location);
        Location = location;
    }

    /// <inheritdoc />
    public string Location { get; }

    /// <summary>Opens the named file for appending and reading, creating it empty when it does not exist.</summary>
    internal IStorageFile Open(string name)
    {
        StorageNames.Validate(name, nameof(name));
        lock (_gate)
        {
            if (!_files.TryGetValue(name, out var data))
            {
                data = new MemoryFileData();
                _files.Add(name, data);
            }

            return new MemoryStorageFile(this, data, name, writable: true, _generation);
        }
    }

    /// <summary>Opens an existing file for reading only; <see cref="FileNotFoundException"/> when it does not exist.</summary>
    internal IStorageFile OpenRead(string name)
    {
        StorageNames.Validate(name, nameof(name));
        lock (_gate)
        {
            return new MemoryStorageFile(this, Find(name), name, writable: false, _generation);
        }
    }

    /// <summary>
    /// Opens the store kept in this storage, creating it when there is none, as
    /// <see cref="StellarStore.OpenAsync(string, StoreOptions?, CancellationToken)"/> does for a directory. After
    /// <see cref="SimulateCrash"/>, opening again runs the recovery a restarted process would.
    /// </summary>
    /// <remarks>The store does not dispose this storage; disposing the store releases its lock here.</remarks>
    public Task<StellarStore> OpenStoreAsync(StoreOptions? options = null, CancellationToken cancellationToken = default) =>
        StellarStore.OpenAsync(this, options, cancellationToken);

    /// <inheritdoc />
    IStorageFile IStorage.Open(string name) => Open(name);

    /// <inheritdoc />
    IStorageFile IStorage.OpenRead(string name) => OpenRead(name);

    /// <inheritdoc />
    public bool Exists(string name)
    {
        StorageNames.Validate(name, nameof(name));
        lock (_gate)
        {
            return _files.ContainsKey(name);
        }
    }

    /// <summary>The names of every file, sorted by ordinal comparison, as <see cref="FileStorage.List"/> sorts them.</summary>
    public IReadOnlyList<string> List()
    {
        lock (_gate)
        {
            var names = _files.Keys.ToList();
            names.Sort(StringComparer.Ordinal);
            return names;
        }
    }

    /// <inheritdoc />
    /// <remarks>Not durable by itself: a crash of the machine before the next directory flush undoes it.</remarks>
    public void Delete(string name)
    {
        StorageNames.Validate(name, nameof(name));
        lock (_gate)
        {
            _files.Remove(name);
        }
    }

    /// <inheritdoc />
    public byte[] ReadAllBytes(string name)
    {
        StorageNames.Validate(name, nameof(name));
        MemoryFileData data;
        lock (_gate)
        {
            data = Find(name);
        }

        return data.ToArray(name);
    }

    /// <inheritdoc />
    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content)
    {
        StorageNames.Validate(name, nameof(name));
        var data = MemoryFileData.Durable(content);
        lock (_gate)
        {
            _files[name] = data;
            SyncDirectory();
        }
    }

    /// <inheritdoc />
    /// <remarks>Replaces <paramref name="to"/> when it exists, as <see cref="FileStorage.Rename"/> does.</remarks>
    public void Rename(string from, string to)
    {
        StorageNames.Validate(from, nameof(from));
        StorageNames.Validate(to, nameof(to));
        lock (_gate)
        {
            var data = Find(from);
            _files.Remove(from);
            _files[to] = data;
            SyncDirectory();
        }
    }

    /// <inheritdoc />
    public IDisposable AcquireLock()
    {
        lock (_gate)
        {
            if (_locked)
            {
                throw new StoreLockedException(Location);
            }

            _locked = true;
            return new LockHandle(this, _generation);
        }
    }

    /// <summary>
    /// Turns this storage into what a process started after a crash would find. Every file handle and the lock
    /// belong to the crashed process: handles throw <see cref="IOException"/> from then on and the lock is free.
    /// </summary>
    /// <param name="losesUnsyncedData">
    /// <see langword="false"/> for a crash of the process (kill -9): everything appended survives, since the
    /// operating system had it. <see langword="true"/> for a crash of the machine (power loss): each file is cut
    /// back to its length at its last flush, and the directory to its last flush.
    /// </param>
    /// <param name="tornTail">
    /// With <paramref name="losesUnsyncedData"/>, a source of randomness that keeps a random prefix (possibly empty,
    /// possibly whole) of each file's unflushed bytes, as a device that had written part of them would; seed it to
    /// make a failure reproducible. Ignored for a crash of the process.
    /// </param>
    public void SimulateCrash(bool losesUnsyncedData, Random? tornTail = null)
    {
        lock (_gate)
        {
            var survivors = new Dictionary<MemoryFileData, MemoryFileData>(ReferenceEqualityComparer.Instance);
            MemoryFileData Survivor(MemoryFileData data)
            {
                if (!survivors.TryGetValue(data, out var survivor))
                {
                    survivor = data.Survive(losesUnsyncedData, tornTail);
                    survivors.Add(data, survivor);
                }

                return survivor;
            }

            Dictionary<string, MemoryFileData> files;
            Dictionary<string, MemoryFileData> durableFiles;
            if (losesUnsyncedData)
            {
                files = _durableFiles.ToDictionary(entry => entry.Key, entry => Survivor(entry.Value), StringComparer.Ordinal);
                durableFiles = new Dictionary<string, MemoryFileData>(files, StringComparer.Ordinal);
            }
            else
            {
                files = _files.ToDictionary(entry => entry.Key, entry => Survivor(entry.Value), StringComparer.Ordinal);
                durableFiles = _durableFiles.ToDictionary(entry => entry.Key, entry => Survivor(entry.Value), StringComparer.Ordinal);
            }

            // Files that did not survive still have handles in the crashed process; those must fail too.
            foreach (var data in _files.Values.Concat(_durableFiles.Values))
            {
                if (!survivors.ContainsKey(data))
                {
                    data.Kill();
                }
            }

            _files = files;
            _durableFiles = durableFiles;
            _generation++;
            _locked = false;
        }
    }

    /// <summary>Makes the directory as it is now the one a crash of the machine keeps (the directory's fsync).</summary>
    internal void FlushDirectory(int generation, string name)
    {
        lock (_gate)
        {
            ThrowIfCrashedSince(generation, name);
            SyncDirectory();
        }
    }

    /// <summary>Throws <see cref="IOException"/> when a crash happened since <paramref name="generation"/>.</summary>
    internal void ThrowIfCrashedSince(int generation, string name)
    {
        if (Volatile.Read(ref _generation) != generation)
        {
            throw new IOException($"'{name}' belongs to a process that crashed (simulated); open the file again.");
        }
    }

    private MemoryFileData Find(string name) =>
        _files.TryGetValue(name, out var data)
            ? data
            : throw new FileNotFoundException($"Could not find file '{name}' in '{Location}'.", name);

    private void SyncDirectory() => _durableFiles = new Dictionary<string, MemoryFileData>(_files, StringComparer.Ordinal);

    private void Release(int generation)
    {
        lock (_gate)
        {
            // A handle from before a crash must not free the lock that a process after it took.
            if (generation == _generation)
            {
                _locked = false;
            }
        }
    }

    private sealed class LockHandle(MemoryStorage storage, int generation) : IDisposable
    {
        private int _disposed;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                storage.Release(generation);
            }
        }
    }
}
