using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>The number of a run entry's index key (<see cref="RadixKey{T}"/>), which a build's radix sort orders the entries by.</summary>
/// <remarks>Thread safety: stateless.</remarks>
internal readonly struct RunEntryNumbers<TIndexKey, TKey, TValue> : IRadixNumbers<RunEntry<TIndexKey, TKey, TValue>>
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ulong Of(in RunEntry<TIndexKey, TKey, TValue> item) => RadixKey<TIndexKey>.Of(item.IndexKey);
}
