namespace Stellar.Store;

/// <summary>
/// One page of an index range (<see cref="IndexView{TIndexKey,TKey,TValue}.Page"/>): its records in index order, and
/// where the next page starts, or null when the range has no more records.
/// </summary>
/// <param name="Items">The page's records, at most the limit asked for.</param>
/// <param name="Next">Pass it to the next call to go on after the last record of this page; null after the last page.</param>
/// <typeparam name="TIndexKey">The index key.</typeparam>
/// <typeparam name="TKey">The collection's key.</typeparam>
/// <typeparam name="TValue">The collection's values.</typeparam>
public sealed record IndexPage<TIndexKey, TKey, TValue>(IReadOnlyList<TValue> Items, IndexContinuation<TIndexKey, TKey>? Next);
