using Stellar.Store.Format;
using Stellar.Store.Shards;

namespace Stellar.Store.Engine;

/// <summary>
/// The state of one compaction of one collection, passed between the writer (begin and finish) and the
/// background task that copies live records (in between); each side touches it only in its own phase.
/// </summary>
internal sealed class CompactionRun<TKey, TValue>
{
    /// <summary>
    /// The shards being compacted, a prefix of the chain: every shard that held blocks at begin, or, while a cursor holds
    /// compaction (<see cref="Holds"/>), only the shards wholly before what every holding cursor acknowledged.
    /// </summary>
    public uint[] Prefix { get; set; } = [];

    /// <summary>Fresh shard ids, durable in the manifest, for the output.</summary>
    public uint[] OutputIds { get; set; } = [];

    /// <summary>The output shards actually written, in order.</summary>
    public List<uint> Outputs { get; } = new();

    /// <summary>What the manifest records of each output shard: salt, first and last sequence, sealed length.</summary>
    public Dictionary<uint, ManifestShard> OutputDetails { get; } = new();

    /// <summary>
    /// The last sequence the prefix replaces (the last one handed out at begin when the prefix is the whole chain):
    /// output blocks take sequences from 1 up to it, and every block left in the chain has a higher one.
    /// </summary>
    public ulong LastSequence { get; set; }

    /// <summary>The pinned version whose live records are copied.</summary>
    public long PinnedVersion { get; set; }

    /// <summary>What the copy moved, for the writer to repoint and account at finish.</summary>
    public List<MovedRecord<TKey, TValue>> Moved { get; } = new();

    /// <summary>The writer tried the manifest swap: from then on no output file may ever be deleted by this run.</summary>
    public bool SwapAttempted { get; set; }

    /// <summary>
    /// Reads the holds of the collection's named cursors as they are stored now: what the begin may not compact. The begin
    /// calls it on the writer's turn, so that every hold whose write completed before the begin holds it.
    /// </summary>
    public Func<IReadOnlyList<CompactionHold>> Holds { get; init; } = static () => [];

    /// <summary>Why <see cref="Holds"/> failed at the begin, which then compacted nothing; the driver fails the run with it.</summary>
    public Exception? HoldsFailure { get; set; }

    /// <summary>The holds this run passes (past their bound), for the driver to report once the output is swapped in.</summary>
    public IReadOnlyList<PassedHold> PassedHolds { get; set; } = [];

    /// <summary>Whether a hold kept history from this run that it would otherwise have compacted.</summary>
    public bool Held { get; set; }

    /// <summary>Whether there is anything to compact.</summary>
    public bool HasWork => Prefix.Length > 0;
}
