using System.Diagnostics;
using Stellar.Store.Actors;
using Stellar.Store.Checkpoints;
using Stellar.Store.Diagnostics;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Units;

namespace Stellar.Store;

/// <summary>Checkpoints: consistent cuts of the whole store, taken while writes go on, that open as stores.</summary>
public sealed partial class StellarStore
{
    /// <summary>The directory under the store's own that holds its checkpoints, one directory each.</summary>
    public const string CheckpointsDirectoryName = "checkpoints";

    /// <summary>One checkpoint at a time: each cuts every collection, and retention deletes after it.</summary>
    private readonly SemaphoreSlim _checkpointGate = new(1, 1);

    /// <summary>Each loaded collection's way to cut its chain into a checkpoint on its writer's turn.</summary>
    private readonly Dictionary<string, Func<CheckpointBuilder, CancellationToken, Task>> _cutters = new(StringComparer.Ordinal);

    /// <summary>
    /// The active shards' prefixes the last checkpoint of this process kept as files of its own (see
    /// <see cref="CheckpointBuilder.KeptPrefixes"/>); read and replaced under <see cref="_checkpointGate"/>.
    /// </summary>
    private IReadOnlyDictionary<string, KeptPrefix> _keptPrefixes = new Dictionary<string, KeptPrefix>();

    /// <summary>
    /// The directory of a store opened by <see cref="OpenReadOnlyAsync"/>, removed at its close; null otherwise. Set before
    /// the open loads any collection, so that none of them starts work in the background that writes.
    /// </summary>
    private readonly string? _view;

    /// <summary>Whether the store was opened by <see cref="OpenReadOnlyAsync"/> and refuses writes.</summary>
    public bool IsReadOnly => _view is not null;

    /// <summary>The directory that holds this store's checkpoints (it exists once the first one was taken).</summary>
    public string CheckpointsPath => System.IO.Path.Combine(Path, CheckpointsDirectoryName);

    /// <summary>
    /// Takes a checkpoint named <paramref name="name"/>: one consistent cut across every collection of the store, in a
    /// directory under <see cref="CheckpointsPath"/> that opens as a store (<see cref="OpenReadOnlyAsync"/>,
    /// <see cref="RestoreAsync"/>). Writes go on meanwhile: each collection's writer holds its writes only while its
    /// shards are listed for the checkpoint (<see cref="CheckpointInfo.WriterPause"/>); the links and the copies of the
    /// active shards' committed bytes are made after, off the writers.
    /// </summary>
    /// <remarks>
    /// <para>What the cut holds: every write whose task completed before the call; no write issued after the task
    /// completes; a write across collections (<see cref="WriteAsync"/>) and an atomic batch whole or not at all. Writes
    /// in flight during the call may or may not be in it.</para>
    /// <para>Sealed shards, which nothing ever changes, are shared with the store by hard link (copied where the file
    /// system cannot link). A checkpoint seals the active shard of each collection at that collection's next write, so
    /// the next checkpoint links it too, and copies only the blocks written after this one (a collection not written
    /// since keeps the copy this checkpoint made, linked): a checkpoint after a checkpoint copies the bytes written
    /// since, and one shard header per collection written. A collection written between checkpoints gains a shard per
    /// checkpoint; once <c>64</c> small ones gathered, it compacts (when <see cref="StoreOptions.CompactionThreshold"/>
    /// lets it compact on its own), which merges them. Encrypted stores work the same: the checkpoint holds the same
    /// ciphertext, signed with the same key, and nothing ever appends to its shards, so no key and nonce is used
    /// twice.</para>
    /// <para>Durable when the task completes, in every durability mode: every file of the checkpoint and its directory
    /// are flushed to the device. A crash before that leaves a directory named with <c>.partial</c>, which the next
    /// checkpoint of that name replaces. <see cref="StoreOptions.CheckpointRetention"/> is applied after the checkpoint
    /// is taken; a failure to delete an older checkpoint throws after the new one was taken (it is then listed).
    /// Thread safety: any thread; checkpoints run one at a time.</para>
    /// </remarks>
    /// <exception cref="ArgumentException">The name breaks the rule for checkpoint names.</exception>
    /// <exception cref="InvalidOperationException">A checkpoint of that name exists, or the store is read-only.</exception>
    /// <exception cref="NotSupportedException">The store does not keep its files in a directory (an in-memory store).</exception>
    /// <exception cref="IOException">A file of the checkpoint could not be written; the store is unharmed and the partial checkpoint removed.</exception>
    /// <exception cref="StoreFaultedException">A collection is faulted, so it cannot be cut.</exception>
    public async Task<CheckpointInfo> CheckpointAsync(string name, CancellationToken cancellationToken = default)
    {
        CheckpointName.Validate(name);
        ThrowIfDisposed();
        ThrowIfReadOnly();
        if (_storage.FilePath(StoreFileNames.Manifest) is null)
        {
            throw new NotSupportedException("Checkpoints need a store on files: this store's storage keeps none.");
        }

        await _checkpointGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var final = System.IO.Path.Combine(CheckpointsPath, name);
            if (Directory.Exists(final))
            {
                throw new InvalidOperationException($"The store has a checkpoint named '{name}' already; delete it first or choose another name.");
            }

            PrivateFiles.CreateDirectory(CheckpointsPath);
            var partial = final + CheckpointName.PartialSuffix;
            if (Directory.Exists(partial))
            {
                // What an interrupted checkpoint of this name left: never a checkpoint, since only a whole one is renamed.
                Directory.Delete(partial, recursive: true);
            }

            // The newest checkpoint is looked up only for a process that has taken none: after one, that one is the
            // newest, and its copies are what the kept prefixes name.
            var newest = _keptPrefixes.Count == 0 && Checkpoints() is { Count: > 0 } taken ? taken[^1].Path : null;
            var checkpoint = new CheckpointBuilder(partial, _keptPrefixes, newest);
            using var activity = StoreDiagnostics.StartCheckpoint(name);
            try
            {
                // The unit log first: a round it decided wrote its parts before its decision, so every part the cut log
                // names is in the collections cut after it, and a part without a decision in the cut is left out at open.
                await CutAsync(UnitLog.CollectionName, checkpoint, cancellationToken).ConfigureAwait(false);
                List<string> names;
                lock (_gate)
                {
                    names = _chains.Keys.Where(n => n != UnitLog.CollectionName).ToList();
                }

                await Task.WhenAll(names.Select(n => CutAsync(n, checkpoint, cancellationToken))).ConfigureAwait(false);
                var createdAt = Options.Clock.GetUtcNow();
                var info = await Task.Run(() => checkpoint.Finish(name, final, createdAt, _manifest.SerializeCut, cancellationToken), cancellationToken).ConfigureAwait(false);
                _keptPrefixes = checkpoint.KeptPrefixes;
                ApplyRetention(name);
                StoreDiagnostics.Checkpointed(activity, info);
                return info;
            }
            catch (Exception e)
            {
                activity?.SetStatus(ActivityStatusCode.Error, e.Message);
                checkpoint.ReleaseHolds();
                TryDeleteDirectory(partial);
                throw;
            }
        }
        finally
        {
            _checkpointGate.Release();
        }
    }

    /// <summary>
    /// The store's checkpoints, oldest first. A directory under <see cref="CheckpointsPath"/> without a readable
    /// description (an interrupted checkpoint, or something else) is not listed.
    /// </summary>
    /// <remarks>Thread safety: any thread.</remarks>
    public IReadOnlyList<CheckpointInfo> Checkpoints() => ListCheckpoints(Path);

    /// <summary>
    /// The checkpoints of the store at <paramref name="storePath"/>, oldest first, read from their descriptions without
    /// opening the store, so also beside a server that has it open (a tool, a backup script). As <see cref="Checkpoints"/>,
    /// an interrupted checkpoint is not listed.
    /// </summary>
    /// <remarks>Thread safety: any thread; it only reads.</remarks>
    public static IReadOnlyList<CheckpointInfo> ListCheckpoints(string storePath)
    {
        ArgumentException.ThrowIfNullOrEmpty(storePath);
        var checkpointsPath = System.IO.Path.Combine(System.IO.Path.GetFullPath(storePath), CheckpointsDirectoryName);
        if (!Directory.Exists(checkpointsPath))
        {
            return [];
        }

        return Directory.EnumerateDirectories(checkpointsPath)
            .Where(d => CheckpointName.IsValid(System.IO.Path.GetFileName(d)))
            .Select(CheckpointBuilder.ReadInfo)
            .OfType<CheckpointInfo>()
            .OrderBy(c => c.CreatedAt)
            .ThenBy(c => c.Name, StringComparer.Ordinal)
            .ToList();
    }

    /// <summary>
    /// Deletes the checkpoint <paramref name="name"/>, if there is one; returns whether there was. The store's own
    /// files are never touched: the checkpoint's shared shards lose one name each.
    /// </summary>
    /// <remarks>Thread safety: any thread; waits for a checkpoint being taken.</remarks>
    /// <exception cref="ArgumentException">The name breaks the rule for checkpoint names.</exception>
    /// <exception cref="InvalidOperationException">The store was opened read-only (a checkpoint): it has no checkpoints to delete.</exception>
    public bool DeleteCheckpoint(string name)
    {
        CheckpointName.Validate(name);
        ThrowIfReadOnly();
        _checkpointGate.Wait();
        try
        {
            return DeleteCheckpointDirectory(name);
        }
        finally
        {
            _checkpointGate.Release();
        }
    }

    /// <summary>
    /// Makes a new store at <paramref name="path"/> from the checkpoint at <paramref name="checkpointPath"/>: every file of
    /// the checkpoint is shared by hard link (copied where the file system cannot link) and the manifest copied last, so
    /// an interrupted restore leaves a directory that refuses to open (shards without a manifest) rather than a wrong
    /// store. The new store opens with the checkpoint's options (its key, if encrypted) and starts new shards for its
    /// writes, never appending to the checkpoint's. Durable when the task completes.
    /// </summary>
    /// <remarks>Thread safety: any thread; the checkpoint is only read.</remarks>
    /// <exception cref="CorruptStoreException">The directory is not a checkpoint (no description, no manifest, or a manifest that lists a shard unsealed); nothing was linked or copied.</exception>
    /// <exception cref="IOException"><paramref name="path"/> exists and is not an empty directory, or a file could not be written.</exception>
    public static Task RestoreAsync(string checkpointPath, string path, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(checkpointPath);
        ArgumentException.ThrowIfNullOrEmpty(path);
        var source = System.IO.Path.GetFullPath(checkpointPath);
        var target = System.IO.Path.GetFullPath(path);
        RequireCheckpoint(source);
        if (Directory.Exists(target) && Directory.EnumerateFileSystemEntries(target).Any())
        {
            throw new IOException($"Cannot restore into '{target}': the directory is not empty.");
        }

        return Task.Run(() => CopyStore(source, target, cancellationToken), cancellationToken);
    }

    /// <summary>
    /// Opens the checkpoint at <paramref name="checkpointPath"/> for reading, without copying it: a store whose
    /// collections, snapshots and indexes read the checkpoint's records, and whose writes are refused with
    /// <see cref="InvalidOperationException"/>: every call that would write or remove anything (see
    /// <see cref="Collection{TKey,TValue}"/>; here <see cref="WriteAsync"/>, <see cref="CompactAsync"/>,
    /// <see cref="CheckpointAsync"/> and <see cref="DeleteCheckpoint"/>). Nothing in the background writes either: no
    /// compaction, no removal of expired records, which reads leave out by the clock all the same. The checkpoint is never changed: the store reads it through a private
    /// directory of hard links beside it, removed when the store is disposed. <paramref name="options"/> give the key of
    /// an encrypted store, as for <see cref="OpenAsync(string, StoreOptions?, CancellationToken)"/>.
    /// </summary>
    /// <remarks>Thread safety: as any store; many may read one checkpoint at once.</remarks>
    /// <exception cref="CorruptStoreException">The directory is not a checkpoint, or a file of it is damaged.</exception>
    /// <exception cref="WrongKeyException">The key does not match the checkpoint's encryption.</exception>
    public static Task<StellarStore> OpenReadOnlyAsync(string checkpointPath, StoreOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(checkpointPath);
        options ??= new StoreOptions();
        options.Validate();
        var source = System.IO.Path.GetFullPath(checkpointPath);
        RequireCheckpoint(source);
        var view = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(source)!, $".view-{Guid.NewGuid():n}");
        return Task.Run(
            () =>
            {
                try
                {
                    CopyStore(source, view, cancellationToken);
                    return Open(view, new FileStorage(view), options, view);
                }
                catch
                {
                    TryDeleteDirectory(view);
                    throw;
                }
            },
            cancellationToken);
    }

    /// <summary>Registers a loaded collection's cut, run on its writer's turn; under the store's lock.</summary>
    private void AddCutter<TKey, TValue>(string name, WriterHandle<CollectionWrite<TKey, TValue>, bool> writer)
        where TKey : notnull
    {
        _cutters[name] = (checkpoint, cancellationToken) => writer.SubmitAsync(new CheckpointStep<TKey, TValue>(checkpoint), cancellationToken);
    }

    /// <summary>
    /// Cuts collection <paramref name="name"/> into <paramref name="checkpoint"/>: on its writer's turn when it is
    /// loaded, else at once under the store's lock, which keeps a load (and so any write) from starting meanwhile.
    /// </summary>
    private async Task CutAsync(string name, CheckpointBuilder checkpoint, CancellationToken cancellationToken)
    {
        while (true)
        {
            Task<object>? loading;
            lock (_gate)
            {
                if (!_collections.TryGetValue(name, out loading))
                {
                    if (_chains.TryGetValue(name, out var chain))
                    {
                        chain.CutInto(checkpoint);
                    }

                    return;
                }
            }

            try
            {
                await loading.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // A failed load registered nothing: the collection has no writer, and its chain is cut as it is.
                continue;
            }

            Func<CheckpointBuilder, CancellationToken, Task> cut;
            lock (_gate)
            {
                cut = _cutters[name];
            }

            await cut(checkpoint, cancellationToken).ConfigureAwait(false);
            return;
        }
    }

    /// <summary>Deletes the checkpoints <see cref="StoreOptions.CheckpointRetention"/> does not keep, right after <paramref name="taken"/> was taken.</summary>
    private void ApplyRetention(string taken)
    {
        if (Options.CheckpointRetention is not { } retention)
        {
            return;
        }

        var checkpoints = Checkpoints();
        var kept = retention.Kept(checkpoints, Options.Clock.GetUtcNow(), taken);
        foreach (var checkpoint in checkpoints)
        {
            if (!kept.Contains(checkpoint.Name))
            {
                DeleteCheckpointDirectory(checkpoint.Name);
            }
        }
    }

    private bool DeleteCheckpointDirectory(string name)
    {
        var directory = System.IO.Path.Combine(CheckpointsPath, name);
        if (!Directory.Exists(directory))
        {
            return false;
        }

        // Renamed first, so that a crash in the middle never leaves a half-deleted checkpoint under its name.
        var doomed = System.IO.Path.Combine(CheckpointsPath, $".deleting-{Guid.NewGuid():n}");
        Directory.Move(directory, doomed);
        DirectorySync.Flush(CheckpointsPath);
        Directory.Delete(doomed, recursive: true);
        return true;
    }

    private void ThrowIfReadOnly()
    {
        if (IsReadOnly)
        {
            throw new InvalidOperationException("This store was opened read-only from a checkpoint: it takes no writes, removals, compactions or checkpoints.");
        }
    }

    /// <summary>
    /// Throws unless <paramref name="directory"/> is a whole checkpoint: its description and its manifest. A live store's
    /// directory is refused, since a store opened on links to its active shards would append to the live store's files.
    /// </summary>
    private static void RequireCheckpoint(string directory)
    {
        if (CheckpointBuilder.ReadInfo(directory) is null)
        {
            throw new CorruptStoreException(System.IO.Path.Combine(directory, CheckpointBuilder.InfoFileName), "the directory is not a checkpoint: it has no readable checkpoint description");
        }

        if (!File.Exists(System.IO.Path.Combine(directory, StoreFileNames.Manifest)))
        {
            throw new CorruptStoreException(System.IO.Path.Combine(directory, StoreFileNames.Manifest), "the checkpoint has no manifest");
        }
    }

    /// <summary>
    /// Gives every shard of the store at <paramref name="source"/> a name in <paramref name="target"/> (a hard link, or a
    /// copy), then copies the manifest, and flushes the directory. Only for a source whose shards are all sealed (a
    /// checkpoint), so that the new store never appends to a shared file, nor cuts a tail from one: a manifest that
    /// lists a shard unsealed is refused with <see cref="CorruptStoreException"/> before anything is linked.
    /// </summary>
    private static void CopyStore(string source, string target, CancellationToken cancellationToken)
    {
        var manifestPath = System.IO.Path.Combine(source, StoreFileNames.Manifest);
        var manifest = File.ReadAllBytes(manifestPath);
        RequireSealed(manifest, manifestPath);
        PrivateFiles.CreateDirectory(target);
        foreach (var file in Directory.EnumerateFiles(source))
        {
            cancellationToken.ThrowIfCancellationRequested();
            var name = System.IO.Path.GetFileName(file);
            if (StoreFileNames.TryParseShard(name, out _, out _))
            {
                HardLink.LinkOrCopy(file, System.IO.Path.Combine(target, name));
            }
        }

        new FileStorage(target).ReplaceAtomically(StoreFileNames.Manifest, manifest);
    }

    /// <summary>
    /// Throws <see cref="CorruptStoreException"/> unless the manifest <paramref name="bytes"/> lists every shard sealed, as
    /// every checkpoint's does: its shards are shared with the store by hard link, and a store opened on an unsealed one
    /// would append to it, or cut its tail, in the store's own file.
    /// </summary>
    private static void RequireSealed(byte[] bytes, string path)
    {
        foreach (var entry in Manifest.Parse(bytes, path).Collections)
        {
            foreach (var shardId in entry.Shards)
            {
                if (entry.ShardDetails.GetValueOrDefault(shardId) is not { IsSealed: true })
                {
                    throw new CorruptStoreException(path,
                        $"the checkpoint lists shard {StoreFileNames.Shard(entry.Id, shardId)} as unsealed, which no checkpoint does: a store opened on it would write to a file it may share with the store");
                }
            }
        }
    }

    private static void TryDeleteDirectory(string directory)
    {
        try
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Left behind; never a checkpoint under its own name, so nothing reads it.
        }
    }
}
