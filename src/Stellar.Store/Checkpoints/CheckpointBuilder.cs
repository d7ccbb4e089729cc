using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Checkpoints;

/// <summary>
/// One checkpoint being written, in a directory of its own named with <see cref="CheckpointName.PartialSuffix"/>: each
/// collection's writer cuts its chain into it on its turn (<see cref="Shards.ShardChain.CutInto"/>), which only lists
/// what the checkpoint keeps and holds the chain's shard files from deletion; then <see cref="Finish"/>, off every
/// writer, links the sealed shards, copies the active shards' committed bytes, releases the holds, writes the manifest
/// and the checkpoint's description, and gives the directory its final name.
/// </summary>
/// <remarks>Thread safety: the writers of several collections call <see cref="Share"/>, <see cref="KeepPrefix"/>,
/// <see cref="Hold"/>, <see cref="Add"/>, <see cref="Fail"/> and <see cref="Paused"/> at once; <see cref="Finish"/>
/// runs after all of them, and <see cref="ReleaseHolds"/> may run at any time after.</remarks>
internal sealed class CheckpointBuilder
{
    /// <summary>The file in a checkpoint's directory that describes it (a <see cref="CheckpointInfo"/>, as JSON).</summary>
    public const string InfoFileName = "CHECKPOINT";

    private static readonly JsonSerializerOptions JsonOptions = new() { WriteIndented = true };

    /// <summary>The methods a cut runs on a writer's turn, compiled before any is asked for its cut (see the constructor).</summary>
    private static readonly MethodInfo[] CutMethods =
    [
        typeof(ShardChain).GetMethod(nameof(ShardChain.CutInto))!,
        typeof(ManifestStore).GetMethod(nameof(ManifestStore.Copy), BindingFlags.Static | BindingFlags.NonPublic)!,
        typeof(CheckpointBuilder).GetMethod(nameof(Share))!,
        typeof(CheckpointBuilder).GetMethod(nameof(KeepPrefix))!,
        typeof(CheckpointBuilder).GetMethod(nameof(Hold))!,
        typeof(CheckpointBuilder).GetMethod(nameof(Add))!,
        typeof(CheckpointBuilder).GetMethod(nameof(Paused))!,
    ];

    private readonly object _gate = new();
    private readonly List<ManifestCollection> _collections = new();
    private readonly List<(string Source, string Name, long Length)> _shares = new();
    private readonly List<(string Source, string Name, long Length)> _prefixes = new();
    private readonly List<Action> _holds = new();
    private readonly IReadOnlyDictionary<string, KeptPrefix> _previous;
    private readonly string? _newest;
    private readonly Dictionary<string, KeptPrefix> _kept = new(StringComparer.Ordinal);
    private Exception? _failure;
    private long _shared;
    private long _copied;
    private TimeSpan _pause;

    /// <summary>
    /// Starts a checkpoint in <paramref name="directory"/>, which must not exist. <paramref name="previous"/> are the
    /// active shards' prefixes the last checkpoint of this process kept (its <see cref="KeptPrefixes"/>): one of the
    /// same length is linked from there instead of copied again. An active shard they do not name is linked from
    /// <paramref name="newest"/>, the store's newest checkpoint (taken by an earlier process, say), when the file of
    /// the same name there holds the same bytes. Compiles the code a cut runs on a writer's turn, off every writer
    /// (otherwise the first checkpoint of a process holds each writer while the runtime compiles it).
    /// </summary>
    public CheckpointBuilder(string directory, IReadOnlyDictionary<string, KeptPrefix> previous, string? newest)
    {
        Directory = directory;
        _previous = previous;
        _newest = newest;
        PrivateFiles.CreateDirectory(directory);
        foreach (var method in CutMethods)
        {
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        }
    }

    /// <summary>The directory being written.</summary>
    public string Directory { get; }

    /// <summary>
    /// After <see cref="Finish"/>: the active shards' prefixes this checkpoint holds, by file name, with where they are
    /// under its final name; the next checkpoint links those still of the same length.
    /// </summary>
    public IReadOnlyDictionary<string, KeptPrefix> KeptPrefixes => _kept;

    /// <summary>
    /// Gives <paramref name="source"/>, a sealed shard of <paramref name="length"/> bytes (as the manifest records it),
    /// the name <paramref name="name"/> in the checkpoint, at <see cref="Finish"/>. The caller holds the file from
    /// deletion until then (<see cref="Hold"/>).
    /// </summary>
    public void Share(string source, string name, long length)
    {
        lock (_gate)
        {
            _shares.Add((source, name, length));
        }
    }

    /// <summary>
    /// Keeps the first <paramref name="length"/> bytes of <paramref name="source"/>, the active shard, as
    /// <paramref name="name"/> in the checkpoint, copied at <see cref="Finish"/> (the writer appends only after them).
    /// The caller holds the file from deletion until then (<see cref="Hold"/>).
    /// </summary>
    public void KeepPrefix(string source, string name, long length)
    {
        lock (_gate)
        {
            _prefixes.Add((source, name, length));
        }
    }

    /// <summary>
    /// Registers <paramref name="release"/>, which ends a hold that keeps a collection's shard files from deletion, to
    /// run once, by <see cref="ReleaseHolds"/>, when the checkpoint no longer reads them.
    /// </summary>
    public void Hold(Action release)
    {
        lock (_gate)
        {
            _holds.Add(release);
        }
    }

    /// <summary>Adds a collection's entry as cut: its chain, with the active shard sealed at the kept length.</summary>
    public void Add(ManifestCollection entry)
    {
        lock (_gate)
        {
            _collections.Add(entry);
        }
    }

    /// <summary>Records a failure of a cut: the checkpoint fails with it, and the store goes on unharmed.</summary>
    public void Fail(Exception failure)
    {
        lock (_gate)
        {
            _failure ??= failure;
        }
    }

    /// <summary>Records how long a writer was held by its cut.</summary>
    public void Paused(TimeSpan pause)
    {
        lock (_gate)
        {
            if (pause > _pause)
            {
                _pause = pause;
            }
        }
    }

    /// <summary>Ends every hold the cuts took (see <see cref="Hold"/>); later calls do nothing. Any thread.</summary>
    public void ReleaseHolds()
    {
        Action[] holds;
        lock (_gate)
        {
            holds = _holds.ToArray();
            _holds.Clear();
        }

        foreach (var release in holds)
        {
            release();
        }
    }

    /// <summary>
    /// After every collection was cut: links the sealed shards, copies the active shards' kept bytes (or links the last
    /// checkpoint's copy of the same bytes), releases the holds, writes the manifest (<paramref name="manifest"/> makes
    /// its bytes from the cut entries) and the description, then renames the directory to
    /// <paramref name="finalDirectory"/>. Every byte is on the device when it returns.
    /// </summary>
    /// <exception cref="IOException">A cut, a link or a copy failed; the caller removes the directory. Or the directory
    /// flush after the rename failed: the checkpoint is complete under its name and kept.</exception>
    public CheckpointInfo Finish(string name, string finalDirectory, DateTimeOffset createdAt, Func<IReadOnlyCollection<ManifestCollection>, byte[]> manifest, CancellationToken cancellationToken)
    {
        if (_failure is not null)
        {
            throw new IOException($"The checkpoint '{name}' failed: {_failure.Message}", _failure);
        }

        try
        {
            foreach (var (source, fileName, length) in _shares)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Count(HardLink.LinkOrCopy(source, Path.Combine(Directory, fileName)), length);
            }

            foreach (var (source, fileName, length) in _prefixes)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Count(KeepPrefixFile(source, fileName, length), length);
                _kept[fileName] = new KeptPrefix(Path.Combine(finalDirectory, fileName), length);
            }
        }
        finally
        {
            ReleaseHolds();
        }

        var info = new CheckpointInfo
        {
            Name = name,
            Path = finalDirectory,
            CreatedAt = createdAt,
            SharedBytes = _shared,
            CopiedBytes = _copied,
            WriterPause = _pause,
        };
        var storage = new FileStorage(Directory);
        storage.ReplaceAtomically(InfoFileName, JsonSerializer.SerializeToUtf8Bytes(info, JsonOptions));
        storage.ReplaceAtomically(StoreFileNames.Manifest, manifest(_collections));
        System.IO.Directory.Move(Directory, finalDirectory);
        try
        {
            DirectorySync.Flush(Path.GetDirectoryName(finalDirectory)!);
        }
        catch (IOException e)
        {
            // The rename happened: the checkpoint is whole under its name, and is kept, not undone.
            throw new IOException($"The checkpoint '{name}' is complete and kept at '{finalDirectory}', but flushing its parent directory failed, so whether it survives a power loss is unknown.", e);
        }

        return info;
    }

    /// <summary>The description kept in a checkpoint's directory, or null when it has none that reads.</summary>
    public static CheckpointInfo? ReadInfo(string directory)
    {
        try
        {
            var info = JsonSerializer.Deserialize<CheckpointInfo>(File.ReadAllBytes(Path.Combine(directory, InfoFileName)), JsonOptions);
            return info is null ? null : info with { Path = directory };
        }
        catch (Exception e) when (e is IOException or JsonException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// Makes <paramref name="fileName"/> in the checkpoint hold the first <paramref name="length"/> bytes of the active
    /// shard <paramref name="source"/>, and returns whether it linked them: from the last checkpoint of this process
    /// when it kept as many (the shard got no block since, and nothing but the writer appends to it, only after them),
    /// else from the newest checkpoint when its file holds the same bytes (compared: a shard of an earlier process may
    /// have lost a torn tail and grown back to the same length with other blocks), else as a copy.
    /// </summary>
    private bool KeepPrefixFile(string source, string fileName, long length)
    {
        var target = Path.Combine(Directory, fileName);
        var linked = _previous.TryGetValue(fileName, out var previous)
            ? previous.Length == length ? TryLink(previous.Path, target, length, compareWith: null) : null
            : _newest is null ? null : TryLink(Path.Combine(_newest, fileName), target, length, compareWith: source);
        if (linked is { } wasLinked)
        {
            return wasLinked;
        }

        CopyPrefix(source, target, length);
        return false;
    }

    /// <summary>
    /// Gives <paramref name="candidate"/> the name <paramref name="target"/> when it is <paramref name="length"/> bytes
    /// long and (given <paramref name="compareWith"/>) holds that file's first bytes; returns whether it linked (false:
    /// it copied, where the file system cannot link), or null when the candidate does not do.
    /// </summary>
    private static bool? TryLink(string candidate, string target, long length, string? compareWith)
    {
        try
        {
            if (new FileInfo(candidate).Length != length || (compareWith is not null && !SameBytes(candidate, compareWith, length)))
            {
                return null;
            }

            return HardLink.LinkOrCopy(candidate, target);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The checkpoint was deleted meanwhile, or its file is unreadable: copy from the store instead.
            File.Delete(target);
            return null;
        }
    }

    /// <summary>Whether the first <paramref name="length"/> bytes of two files are the same.</summary>
    private static bool SameBytes(string first, string second, long length)
    {
        using var a = new FileStream(first, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.SequentialScan);
        using var b = new FileStream(second, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.SequentialScan);
        var left = new byte[1 << 20];
        var right = new byte[1 << 20];
        for (var done = 0L; done < length;)
        {
            var count = (int)Math.Min(left.Length, length - done);
            a.ReadExactly(left, 0, count);
            b.ReadExactly(right, 0, count);
            if (!left.AsSpan(0, count).SequenceEqual(right.AsSpan(0, count)))
            {
                return false;
            }

            done += count;
        }

        return true;
    }

    private void Count(bool linked, long length)
    {
        if (linked)
        {
            _shared += length;
        }
        else
        {
            _copied += length;
        }
    }

    private static void CopyPrefix(string source, string target, long length)
    {
        using var from = new FileStream(source, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.SequentialScan);
        using var to = PrivateFiles.Open(target, FileMode.CreateNew, FileAccess.Write, FileShare.None);
        var buffer = new byte[1 << 20];
        var left = length;
        while (left > 0)
        {
            var read = from.Read(buffer, 0, (int)Math.Min(buffer.Length, left));
            if (read == 0)
            {
                throw new IOException($"The shard '{source}' ended {left} bytes before the {length} committed bytes the checkpoint keeps.");
            }

            to.Write(buffer, 0, read);
            left -= read;
        }

        to.Flush(flushToDisk: true);
    }
}
