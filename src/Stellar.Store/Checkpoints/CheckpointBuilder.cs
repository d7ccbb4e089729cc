using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Checkpoints;

/// <summary>
/// One checkpoint being written, in a directory of its own named with <see cref="CheckpointName.PartialSuffix"/>: each
/// collection's writer cuts its chain into it on its turn (<see cref="Shards.ShardChain.CutInto"/>), then
/// <see cref="Finish"/>, off every writer, copies the active shards' committed bytes, writes the manifest and the
/// checkpoint's description, and gives the directory its final name.
/// </summary>
/// <remarks>Thread safety: the writers of several collections call <see cref="Share"/>, <see cref="KeepPrefix"/>,
/// <see cref="Add"/>, <see cref="Fail"/> and <see cref="Paused"/> at once; <see cref="Finish"/> runs after all of them.</remarks>
internal sealed class CheckpointBuilder
{
    /// <summary>The file in a checkpoint's directory that describes it (a <see cref="CheckpointInfo"/>, as JSON).</summary>
    public const string InfoFileName = "CHECKPOINT";

    /// <summary>The suffix of an active shard's temporary second name in the checkpoint, until its prefix is copied.</summary>
    private const string PrefixSuffix = ".prefix";

    private static readonly JsonSerializerOptions JsonOptions = new() { WriteIndented = true };

    /// <summary>The methods a cut runs on a writer's turn (see <see cref="PrepareCut"/>).</summary>
    private static readonly MethodInfo[] CutMethods =
    [
        typeof(ShardChain).GetMethod(nameof(ShardChain.CutInto))!,
        typeof(ManifestStore).GetMethod(nameof(ManifestStore.Copy), BindingFlags.Static | BindingFlags.NonPublic)!,
        typeof(CheckpointBuilder).GetMethod(nameof(Share))!,
        typeof(CheckpointBuilder).GetMethod(nameof(KeepPrefix))!,
        typeof(CheckpointBuilder).GetMethod(nameof(Add))!,
        typeof(CheckpointBuilder).GetMethod(nameof(Paused))!,
    ];

    private readonly object _gate = new();
    private readonly List<ManifestCollection> _collections = new();
    private readonly List<(string Temp, string Final, long Length)> _prefixes = new();
    private Exception? _failure;
    private long _shared;
    private long _copied;
    private TimeSpan _pause;

    /// <summary>Starts a checkpoint in <paramref name="directory"/>, which must not exist.</summary>
    public CheckpointBuilder(string directory)
    {
        Directory = directory;
        PrivateFiles.CreateDirectory(directory);
        PrepareCut(directory);
    }

    /// <summary>
    /// Off every writer, before any is asked for its cut: compiles the code a cut runs on a writer's turn (at once, when
    /// it was compiled before), and binds the link call by linking an empty file in <paramref name="directory"/>, a few
    /// system calls. Otherwise the first checkpoint of a process holds each writer while the runtime does both
    /// (measured: a first pause of 1.1 to 1.5 ms, where later ones take tens to hundreds of microseconds). A probe the
    /// file system refuses is left to the cut, which meets the same refusal and reports it.
    /// </summary>
    private static void PrepareCut(string directory)
    {
        foreach (var method in CutMethods)
        {
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        }

        var probe = Path.Combine(directory, ".link-probe");
        try
        {
            using (PrivateFiles.Open(probe, FileMode.CreateNew, FileAccess.Write, FileShare.None))
            {
            }

            HardLink.LinkOrCopy(probe, probe + ".linked");
            File.Delete(probe + ".linked");
            File.Delete(probe);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Only a warm-up: the cut reports a refusal of its own links, and a probe file left behind is an unknown file,
            // which an open of the checkpoint ignores.
        }
    }

    /// <summary>The directory being written.</summary>
    public string Directory { get; }

    /// <summary>
    /// Gives <paramref name="source"/>, a sealed shard of <paramref name="length"/> bytes (as the manifest records it, so
    /// that the writer's turn costs one system call per shard), the name <paramref name="name"/> in the checkpoint.
    /// </summary>
    public void Share(string source, string name, long length)
    {
        var target = Path.Combine(Directory, name);
        var linked = HardLink.LinkOrCopy(source, target);
        lock (_gate)
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
    }

    /// <summary>
    /// Keeps the first <paramref name="length"/> bytes of <paramref name="source"/>, the active shard, as
    /// <paramref name="name"/> in the checkpoint: linked now to a temporary name (so a compaction that deletes the
    /// shard cannot take them away), copied by <see cref="Finish"/>.
    /// </summary>
    public void KeepPrefix(string source, string name, long length)
    {
        var temp = Path.Combine(Directory, name + PrefixSuffix);
        HardLink.LinkOrCopy(source, temp);
        lock (_gate)
        {
            _prefixes.Add((temp, Path.Combine(Directory, name), length));
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

    /// <summary>
    /// After every collection was cut: copies the active shards' kept bytes, flushes them, writes the manifest
    /// (<paramref name="manifest"/> makes its bytes from the cut entries) and the description, then renames the directory
    /// to <paramref name="finalDirectory"/>. Every byte is on the device when it returns.
    /// </summary>
    /// <exception cref="IOException">A cut or a copy failed; the caller removes the directory.</exception>
    public CheckpointInfo Finish(string name, string finalDirectory, DateTimeOffset createdAt, Func<IReadOnlyCollection<ManifestCollection>, byte[]> manifest, CancellationToken cancellationToken)
    {
        if (_failure is not null)
        {
            throw new IOException($"The checkpoint '{name}' failed: {_failure.Message}", _failure);
        }

        foreach (var (temp, final, length) in _prefixes)
        {
            cancellationToken.ThrowIfCancellationRequested();
            CopyPrefix(temp, final, length);
            File.Delete(temp);
            _copied += length;
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
        DirectorySync.Flush(Path.GetDirectoryName(finalDirectory)!);
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
