namespace Stellar.Store;

/// <summary>Prefix reads of indexes whose key is a string.</summary>
public static class IndexPrefixExtensions
{
    /// <summary>
    /// The records whose index key starts with <paramref name="prefix"/> (ordinal comparison), in index order, from
    /// the newest published version. Thread safety as <see cref="CollectionIndex{TIndexKey,TKey,TValue}"/>.
    /// </summary>
    public static IEnumerable<TValue> Prefix<TKey, TValue>(this CollectionIndex<string, TKey, TValue> index, string prefix)
        where TKey : notnull
    {
        ArgumentNullException.ThrowIfNull(index);
        ArgumentNullException.ThrowIfNull(prefix);
        return index.Latest(view => view.Prefix(prefix));
    }

    /// <summary>
    /// The records whose index key starts with <paramref name="prefix"/> (ordinal comparison), in index order, at the
    /// view's version. Thread safety as <see cref="IndexView{TIndexKey,TKey,TValue}"/>.
    /// </summary>
    public static IEnumerable<TValue> Prefix<TKey, TValue>(this IndexView<string, TKey, TValue> view, string prefix)
        where TKey : notnull
    {
        ArgumentNullException.ThrowIfNull(view);
        return view.Prefix(prefix);
    }
}
