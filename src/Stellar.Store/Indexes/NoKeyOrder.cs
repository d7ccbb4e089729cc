namespace Stellar.Store.Indexes;

/// <summary>
/// Calls every two keys equal: for an index whose entries need no order by primary key (they are told apart by the
/// version they start at and the order they were made in), so that any key type can be used.
/// </summary>
internal sealed class NoKeyOrder<TKey> : IComparer<TKey>
{
    public static readonly NoKeyOrder<TKey> Instance = new();

    public int Compare(TKey? x, TKey? y) => 0;
}
