namespace Stellar.Store.Indexes;

/// <summary>
/// Calls every two keys equal: for an index whose entries need no order by primary key (the expiry index, whose
/// <see cref="ExpiryKey"/> tells its entries apart), so that any key type can be used.
/// </summary>
internal sealed class NoKeyOrder<TKey> : IComparer<TKey>
{
    public static readonly NoKeyOrder<TKey> Instance = new();

    public int Compare(TKey? x, TKey? y) => 0;
}
