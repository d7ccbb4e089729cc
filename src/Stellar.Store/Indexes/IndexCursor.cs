namespace Stellar.Store.Indexes;

/// <summary>
/// A walk over the entries of an index a reader at one version sees, in index order or in reverse: the merge of the
/// index's <see cref="SortedRun{TIndexKey,TKey,TValue}"/> and its <see cref="OrderedList{T,TLead}"/>, entry by entry.
/// </summary>
/// <remarks>
/// A struct with no interface between the caller and the merge, so that a top-N of a hundred entries costs the walk
/// and not a call through an enumerator per entry. Thread safety: one thread per cursor; any number of cursors read
/// one index at once, without locks.
/// </remarks>
internal struct IndexCursor<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    private readonly OrderedIndex<TIndexKey, TKey, TValue> _index;
    private readonly SortedRun<TIndexKey, TKey, TValue> _run;
    private readonly long _version;
    private readonly bool _forward;
    private int _slot;

    /// <summary>The walk of the index's list; <see cref="_entry"/> is the next entry of it the reader sees, or null.</summary>
    private OrderedListCursor<IndexEntry<TIndexKey, TKey, TValue>, TIndexKey> _list;
    private IndexEntry<TIndexKey, TKey, TValue>? _entry;

    /// <summary>A cursor at the first entry from <paramref name="start"/> on (from the first of all when null), going up.</summary>
    public static IndexCursor<TIndexKey, TKey, TValue> Ascending(OrderedIndex<TIndexKey, TKey, TValue> index, IndexEntry<TIndexKey, TKey, TValue>? start, long version)
    {
        var run = index.Run;
        return new(index, run, version, forward: true, run.NextVisible(start is null ? 0 : run.LowerBound(start, index.Order), version), index.Entries.Ascending(start));
    }

    /// <summary>A cursor at the last entry, going down.</summary>
    public static IndexCursor<TIndexKey, TKey, TValue> Descending(OrderedIndex<TIndexKey, TKey, TValue> index, long version)
    {
        var run = index.Run;
        return new(index, run, version, forward: false, run.PreviousVisible(run.Count - 1, version), index.Entries.Descending(null));
    }

    private IndexCursor(OrderedIndex<TIndexKey, TKey, TValue> index, SortedRun<TIndexKey, TKey, TValue> run, long version, bool forward, int slot, OrderedListCursor<IndexEntry<TIndexKey, TKey, TValue>, TIndexKey> list)
    {
        _index = index;
        _run = run;
        _version = version;
        _forward = forward;
        _slot = slot;
        _list = list;
        _entry = NextVisible();
    }

    /// <summary>The next entry the reader sees, or false at the end.</summary>
    public bool MoveNext(out IndexHit<TIndexKey, TKey, TValue> hit)
    {
        while (true)
        {
            var inRun = _forward ? _slot < _run.Count : _slot >= 0;
            if (inRun && (_entry is null || TakesRun()))
            {
                var slot = _slot;
                _slot = _forward ? _run.NextVisible(slot + 1, _version) : _run.PreviousVisible(slot - 1, _version);
                if (_run.NodeAt(slot) is { } newest)
                {
                    hit = new(_run.IndexKeyAt(slot), _run.KeyAt(slot), newest);
                    return true;
                }
            }
            else if (_entry is { } entry)
            {
                _entry = NextVisible();
                if (entry.Node is { } newest)
                {
                    hit = new(entry.IndexKey, entry.Key, newest);
                    return true;
                }
            }
            else
            {
                hit = default;
                return false;
            }
        }
    }

    /// <summary>Whether the run's entry comes before the list's in the walk's direction (on a tie the run's is older, so first going up).</summary>
    private readonly bool TakesRun()
    {
        var order = _run.Compare(_slot, _entry!, _index.Order);
        return _forward ? order < 0 : order > 0;
    }

    /// <summary>The next entry of the list's walk that the reader sees, or null at its end.</summary>
    private IndexEntry<TIndexKey, TKey, TValue>? NextVisible()
    {
        while (_list.MoveNext(out var entry))
        {
            if (entry.VisibleAt(_version))
            {
                return entry;
            }
        }

        return null;
    }
}
