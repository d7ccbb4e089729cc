using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// Orders index entries by index key, then primary key, then the version they start at and the order they were made
/// in, so that every entry is distinct; a probe sorts before (or after) every entry of its index key.
/// </summary>
/// <remarks>
/// <para>Every search of an index compares keys a few dozen times, so a key type's own order is called directly, not
/// through the comparer's interface, where that is the order given: <see cref="Comparer{T}.Default"/> of a value type,
/// which the JIT calls without a dispatch, and the ordinal order of strings (<see cref="IndexOrder"/>).</para>
/// <para>Thread safety: immutable; any thread.</para>
/// </remarks>
internal sealed class IndexEntryComparer<TIndexKey, TKey, TValue> : IComparer<IndexEntry<TIndexKey, TKey, TValue>>
{
    private readonly KeyOrder _indexKeyOrder;
    private readonly KeyOrder _keyOrder;

    public IndexEntryComparer(IComparer<TIndexKey> indexKeys, IComparer<TKey> keys)
    {
        IndexKeys = indexKeys;
        Keys = keys;
        _indexKeyOrder = OrderOf(indexKeys);
        _keyOrder = OrderOf(keys);
    }

    /// <summary>How a comparer of keys is called.</summary>
    private enum KeyOrder : byte
    {
        /// <summary>Through its interface.</summary>
        Given,

        /// <summary><see cref="Comparer{T}.Default"/> of a value type.</summary>
        ValueDefault,

        /// <summary><see cref="StringComparer.Ordinal"/>.</summary>
        Ordinal,
    }

    /// <summary>The order of index keys alone.</summary>
    public IComparer<TIndexKey> IndexKeys { get; }

    /// <summary>The order of primary keys alone.</summary>
    public IComparer<TKey> Keys { get; }

    public int Compare(IndexEntry<TIndexKey, TKey, TValue>? x, IndexEntry<TIndexKey, TKey, TValue>? y)
    {
        var byIndexKey = CompareIndexKeys(x!.IndexKey, y!.IndexKey);
        if (byIndexKey != 0)
        {
            return byIndexKey;
        }

        // A probe before (-2) or after (2) the whole index key sorts by its bound alone.
        if (Math.Abs(x.Bound) == 2 || Math.Abs(y.Bound) == 2)
        {
            return x.Bound.CompareTo(y.Bound);
        }

        var byKey = CompareKeys(x.Key, y.Key);
        if (byKey != 0 || x.Bound != 0 || y.Bound != 0)
        {
            // A probe after a record (1) sorts after every version of it.
            return byKey != 0 ? byKey : x.Bound.CompareTo(y.Bound);
        }

        var byFrom = x.From.CompareTo(y.From);
        return byFrom != 0 ? byFrom : x.Sequence.CompareTo(y.Sequence);
    }

    /// <summary>Orders two index keys as <see cref="IndexKeys"/> does.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int CompareIndexKeys(TIndexKey x, TIndexKey y) => _indexKeyOrder switch
    {
        KeyOrder.ValueDefault => Comparer<TIndexKey>.Default.Compare(x, y),
        KeyOrder.Ordinal => string.CompareOrdinal((string?)(object?)x, (string?)(object?)y),
        _ => IndexKeys.Compare(x, y),
    };

    /// <summary>Orders two primary keys as <see cref="Keys"/> does.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int CompareKeys(TKey x, TKey y) => _keyOrder switch
    {
        KeyOrder.ValueDefault => Comparer<TKey>.Default.Compare(x, y),
        KeyOrder.Ordinal => string.CompareOrdinal((string?)(object?)x, (string?)(object?)y),
        _ => Keys.Compare(x, y),
    };

    private static KeyOrder OrderOf<T>(IComparer<T> comparer) =>
        typeof(T).IsValueType && ReferenceEquals(comparer, Comparer<T>.Default) ? KeyOrder.ValueDefault
        : typeof(T) == typeof(string) && ReferenceEquals(comparer, StringComparer.Ordinal) ? KeyOrder.Ordinal
        : KeyOrder.Given;
}
