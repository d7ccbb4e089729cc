using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>The indexes a collection's writer keeps, told of every version it applies and of every move of the horizon.</summary>
/// <remarks>Thread safety: the collection writer's alone.</remarks>
internal sealed class IndexSet<TKey, TValue>
{
    private readonly List<IIndexMaintainer<TKey, TValue>> _indexes = new();

    /// <summary>Whether any index is kept: a commit without one does no index work at all.</summary>
    public bool Any => _indexes.Count > 0;

    public void Add(IIndexMaintainer<TKey, TValue> index) => _indexes.Add(index);

    public void Remove(IIndexMaintainer<TKey, TValue> index) => _indexes.Remove(index);

    /// <inheritdoc cref="IIndexMaintainer{TKey,TValue}.Applied"/>
    public void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        foreach (var index in _indexes)
        {
            index.Applied(key, deleted, value, version, node);
        }
    }

    /// <inheritdoc cref="IIndexMaintainer{TKey,TValue}.Trim"/>
    public void Trim(long horizon)
    {
        foreach (var index in _indexes)
        {
            index.Trim(horizon);
        }
    }
}
