using Stellar.Store.Indexes;

namespace Stellar.Store.Engine;

/// <summary>
/// A request to the collection's writer, queued like a write, to start keeping an index (built from the records as
/// of the writes before it, then kept with every write after it), to answer from one built beside the writer, or to
/// stop keeping one. It stores nothing.
/// </summary>
internal sealed class IndexStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public IndexStep(IIndexMaintainer<TKey, TValue> index, IndexStepKind kind)
    {
        Index = index;
        Kind = kind;
    }

    public IIndexMaintainer<TKey, TValue> Index { get; }

    public IndexStepKind Kind { get; }

    /// <summary>
    /// Set by the writer at a <see cref="IndexStepKind.Build"/> step of an index built beside it: the build, which
    /// returns whether it succeeded, and the version it reads the records at, pinned until the install step.
    /// </summary>
    public (Task<bool> Build, long Version)? Aside { get; set; }

    /// <summary>Nothing of it is queued data: it never holds back a write.</summary>
    public override long Bytes => 0;

    /// <summary>It holds no buffers.</summary>
    public override void Release()
    {
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        stager.StageIndex(this);
        return null;
    }
}
