using Stellar.Store.Indexes;

namespace Stellar.Store.Engine;

/// <summary>
/// A request to the collection's writer, queued like a write, to start keeping an index (built from the records as
/// of the writes before it, then kept with every write after it) or to stop keeping one. It stores nothing.
/// </summary>
internal sealed class IndexStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public IndexStep(IIndexMaintainer<TKey, TValue> index, bool drop)
    {
        Index = index;
        Drop = drop;
    }

    public IIndexMaintainer<TKey, TValue> Index { get; }

    /// <summary>Whether the index stops being kept, rather than starts.</summary>
    public bool Drop { get; }

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
