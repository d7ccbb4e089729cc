namespace Stellar.Store.Indexes;

/// <summary>Orders the entries of a run by index key, then primary key: the order its build sorts them into.</summary>
/// <remarks>A struct, so that a sort by it calls no comparer through an interface of its own. Thread safety: stateless.</remarks>
internal readonly struct RunEntryOrder<TIndexKey, TKey, TValue> : IComparer<RunEntry<TIndexKey, TKey, TValue>>
{
    private readonly IndexEntryComparer<TIndexKey, TKey, TValue> _order;

    public RunEntryOrder(IndexEntryComparer<TIndexKey, TKey, TValue> order) => _order = order;

    public int Compare(RunEntry<TIndexKey, TKey, TValue> x, RunEntry<TIndexKey, TKey, TValue> y)
    {
        var byIndexKey = _order.IndexKeys.Compare(x.IndexKey, y.IndexKey);
        return byIndexKey != 0 ? byIndexKey : _order.Keys.Compare(x.Key, y.Key);
    }
}
