namespace Stellar.Store;

/// <summary>
/// Where a page of an index range ended: the index key and primary key of its last record. The next page starts
/// after that position, so pages read from one snapshot cover a range exactly once; pages read from newer versions
/// (the live index, or a later snapshot) start after the same position, so a record that moved meanwhile may be
/// seen twice or not at all, as with any keyset paging. Plain data: it may be kept, sent to a client and given back.
/// </summary>
/// <param name="IndexKey">The index key of the last record of the page.</param>
/// <param name="Key">The primary key of the last record of the page.</param>
/// <typeparam name="TIndexKey">The index key.</typeparam>
/// <typeparam name="TKey">The collection's key.</typeparam>
public sealed record IndexContinuation<TIndexKey, TKey>(TIndexKey IndexKey, TKey Key);
