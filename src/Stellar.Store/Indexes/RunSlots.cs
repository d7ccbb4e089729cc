using System.Numerics;
using System.Runtime.CompilerServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// The slot of each record's entry in a <see cref="SortedRun{TIndexKey,TKey,TValue}"/>: an open-addressing hash table
/// (linear probing) of slot numbers, which holds no keys of its own and compares the entries'.
/// </summary>
/// <remarks>
/// <para>Why not a dictionary from key to slot: it keeps a key, a slot, a hash and a link per record (32 bytes for an
/// integer key, and 36 MB for a million records), and filling it cost as much as reading the records. Here a record
/// costs two cells of four bytes, filled in one pass over the run.</para>
/// <para>The table never changes after it is built: a slot whose entry ended stays, and the caller tells from the run
/// that it ended (<see cref="SortedRun{TIndexKey,TKey,TValue}.UntilAt"/>).</para>
/// <para>Thread safety: immutable once built, by whichever thread asks for it first (the pool's, or the writer's), and
/// handed over through a <see cref="Lazy{T}"/>; its owner (the collection's writer) reads it.</para>
/// </remarks>
internal sealed class RunSlots<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    /// <summary>The slot of each cell plus one; zero for an empty cell.</summary>
    private readonly int[] _cells;

    private readonly int _shift;
    private readonly RunEntry<TIndexKey, TKey, TValue>[] _entries;

    /// <summary>Null for a value type with the default comparer, so that the JIT inlines its equality.</summary>
    private readonly IEqualityComparer<TKey>? _equality;

    /// <summary>
    /// The slots of the first <paramref name="count"/> of <paramref name="entries"/>, the array a run takes over (or will);
    /// it reads their primary keys, which never change. Of two entries with equal keys, <see cref="Find"/> finds the first.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public RunSlots(RunEntry<TIndexKey, TKey, TValue>[] entries, int count, IEqualityComparer<TKey>? equality)
    {
        _entries = entries;
        _equality = typeof(TKey).IsValueType && (equality is null || ReferenceEquals(equality, EqualityComparer<TKey>.Default))
            ? null
            : equality ?? EqualityComparer<TKey>.Default;

        // At most half full, so that a probe ends within a few cells.
        var size = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(2L, count * 2L));
        _shift = 32 - BitOperations.Log2((uint)size);
        _cells = new int[size];
        for (var slot = 0; slot < count; slot++)
        {
            var cell = CellOf(entries[slot].Key);
            while (_cells[cell] != 0)
            {
                cell = (cell + 1) & (_cells.Length - 1);
            }

            _cells[cell] = slot + 1;
        }
    }

    /// <summary>The run's slot of record <paramref name="key"/>, ended or not, or -1 when the run has none.</summary>
    public int Find(TKey key)
    {
        for (var cell = CellOf(key); ; cell = (cell + 1) & (_cells.Length - 1))
        {
            var slot = _cells[cell] - 1;
            if (slot < 0 || Equal(_entries[slot].Key, key))
            {
                return slot;
            }
        }
    }

    /// <summary>
    /// The first cell to probe for <paramref name="key"/>: the hash scrambled by the golden ratio (Fibonacci hashing), so
    /// that keys whose hashes differ only in high bits, or are multiples of a power of two, still spread over the table.
    /// </summary>
    private int CellOf(TKey key) =>
        (int)(((uint)(_equality is null ? EqualityComparer<TKey>.Default.GetHashCode(key) : _equality.GetHashCode(key)) * 2654435769u) >> _shift);

    private bool Equal(TKey a, TKey b) => _equality is null ? EqualityComparer<TKey>.Default.Equals(a, b) : _equality.Equals(a, b);
}
