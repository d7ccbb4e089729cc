using System.Diagnostics;
using System.Runtime.CompilerServices;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// The entries an index was built with, sorted once into plain arrays: the <see cref="RunEntry{TIndexKey,TKey,TValue}"/>
/// per slot, and the version each entry ended at, per block of slots once one of them ended. It never grows; the entries written after the build go to
/// the index's <see cref="OrderedList{T,TLead}"/>, and a reader merges the two (<see cref="IndexCursor{TIndexKey,TKey,TValue}"/>).
/// </summary>
/// <remarks>
/// <para>Why this shape: building a linked list of a million entries allocated an object or two per entry and linked them
/// one by one, which cost an open with two indexes three times the open without them. Arrays cost four allocations in all,
/// and a search is a binary search. Every entry of a run starts at or before the version the index was built at, so a
/// reader (never older than that version) tells whether it sees an entry from when it ended alone.</para>
/// <para>An entry that ends stays in its slot: readers at older versions still read it. Once no reader can, the writer
/// forgets its node (so that the old record can be collected), and readers skip a block of
/// <see cref="BlockSize"/> slots whose every entry ended by their version in one test.</para>
/// <para>Thread safety: <see cref="Refer"/>, <see cref="End"/> and <see cref="Forget"/> are the writer's (one thread at
/// a time); everything else is for any thread, without locks.</para>
/// </remarks>
internal sealed class SortedRun<TIndexKey, TKey, TValue>
{
    /// <summary>The slots per block whose ends readers can skip together.</summary>
    public const int BlockSize = 64;

    private const int BlockShift = 6;

    private readonly RunEntry<TIndexKey, TKey, TValue>[] _entries;
    /// <summary>
    /// Per block, the version each of its slots' entries ended at (<see cref="long.MaxValue"/> while it lives), or null
    /// while every entry of the block lives: made when the first of them ends, so that a build allocates no array of a
    /// version per record (8 MB for a million) that stays untouched until the records are written.
    /// </summary>
    private readonly long[]?[] _until;

    /// <summary>Per block: the version its last live entry ended at, or <see cref="long.MaxValue"/> while one lives.</summary>
    private readonly long[] _blockEnd;

    /// <summary>Writer only: per block, how many of its entries live.</summary>
    private readonly int[] _blockLive;

    /// <summary>
    /// A run of the first <paramref name="count"/> of <paramref name="entries"/>, which the run takes over: sorted by
    /// <see cref="RunEntryOrder{TIndexKey,TKey,TValue}"/>, with no two alike.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public SortedRun(RunEntry<TIndexKey, TKey, TValue>[] entries, int count)
    {
        Debug.Assert(entries.Length >= count, "the array holds the run");
        _entries = entries;
        Count = count;
        var blocks = (count + BlockSize - 1) >> BlockShift;
        _until = new long[]?[blocks];
        _blockEnd = new long[blocks];
        Array.Fill(_blockEnd, long.MaxValue);
        _blockLive = new int[blocks];
        for (var block = 0; block < blocks; block++)
        {
            _blockLive[block] = Math.Min(BlockSize, count - (block << BlockShift));
        }
    }

    /// <summary>The run of an index that was built without one.</summary>
    public static SortedRun<TIndexKey, TKey, TValue> Empty { get; } = new([], 0);

    /// <summary>The number of slots, live or ended.</summary>
    public int Count { get; }

    public TIndexKey IndexKeyAt(int slot) => _entries[slot].IndexKey;

    public TKey KeyAt(int slot) => _entries[slot].Key;

    /// <summary>The record's newest version node while the entry lives; null once the writer forgot an ended entry.</summary>
    public VersionNode<TValue>? NodeAt(int slot) => Volatile.Read(ref _entries[slot].Node);

    /// <summary>The version the entry ended at; <see cref="long.MaxValue"/> while it lives.</summary>
    public long UntilAt(int slot) =>
        Volatile.Read(ref _until[slot >> BlockShift]) is { } block ? Volatile.Read(ref block[slot & (BlockSize - 1)]) : long.MaxValue;

    /// <summary>
    /// Orders slot <paramref name="slot"/> against <paramref name="entry"/> as <see cref="IndexEntryComparer{TIndexKey,TKey,TValue}"/>
    /// orders entries; an entry of the list with the same index key and primary key sorts after the slot, since
    /// it started after the build.
    /// </summary>
    public int Compare(int slot, IndexEntry<TIndexKey, TKey, TValue> entry, IndexEntryComparer<TIndexKey, TKey, TValue> order)
    {
        var byIndexKey = order.IndexKeys.Compare(_entries[slot].IndexKey, entry.IndexKey);
        if (byIndexKey != 0)
        {
            return byIndexKey;
        }

        if (Math.Abs(entry.Bound) == 2)
        {
            return -entry.Bound;
        }

        // Same record: an entry of the list started after the build, and a probe after the record (1) is after it too.
        var byKey = order.Keys.Compare(_entries[slot].Key, entry.Key);
        return byKey != 0 ? byKey : -1;
    }

    /// <summary>The first slot that sorts at or after <paramref name="probe"/>, or <see cref="Count"/>.</summary>
    public int LowerBound(IndexEntry<TIndexKey, TKey, TValue> probe, IndexEntryComparer<TIndexKey, TKey, TValue> order)
    {
        var low = 0;
        var high = Count;
        while (low < high)
        {
            var middle = low + ((high - low) >> 1);
            if (Compare(middle, probe, order) < 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }

    /// <summary>The first slot from <paramref name="slot"/> on whose entry a reader at <paramref name="version"/> sees, or <see cref="Count"/>.</summary>
    public int NextVisible(int slot, long version)
    {
        while (slot < Count)
        {
            if ((slot & (BlockSize - 1)) == 0 && Volatile.Read(ref _blockEnd[slot >> BlockShift]) <= version)
            {
                slot += BlockSize;
                continue;
            }

            if (version < UntilAt(slot))
            {
                return slot;
            }

            slot++;
        }

        return Count;
    }

    /// <summary>The last slot from <paramref name="slot"/> down whose entry a reader at <paramref name="version"/> sees, or -1.</summary>
    public int PreviousVisible(int slot, long version)
    {
        while (slot >= 0)
        {
            if ((slot & (BlockSize - 1)) == BlockSize - 1 && Volatile.Read(ref _blockEnd[slot >> BlockShift]) <= version)
            {
                slot -= BlockSize;
                continue;
            }

            if (version < UntilAt(slot))
            {
                return slot;
            }

            slot--;
        }

        return -1;
    }

    /// <summary>Writer only: the record of slot <paramref name="slot"/> has a newer version <paramref name="node"/> with the same index key.</summary>
    public void Refer(int slot, VersionNode<TValue> node) => Volatile.Write(ref _entries[slot].Node, node);

    /// <summary>Writer only: the entry of slot <paramref name="slot"/> ends at <paramref name="version"/>, newer than any ended before.</summary>
    public void End(int slot, long version)
    {
        Debug.Assert(UntilAt(slot) == long.MaxValue, "an entry ends once");
        var block = slot >> BlockShift;
        if (_until[block] is { } until)
        {
            Volatile.Write(ref until[slot & (BlockSize - 1)], version);
        }
        else
        {
            // Filled before readers can reach it: a reader sees no array (every entry lives) or this one, whole.
            var made = new long[BlockSize];
            Array.Fill(made, long.MaxValue);
            made[slot & (BlockSize - 1)] = version;
            Volatile.Write(ref _until[block], made);
        }

        if (--_blockLive[block] == 0)
        {
            // The last to end in its block, at the newest version of them all: readers from it on skip the block.
            Volatile.Write(ref _blockEnd[block], version);
        }
    }

    /// <summary>Writer only: no reader can see the ended entry of slot <paramref name="slot"/> any more.</summary>
    public void Forget(int slot)
    {
        Debug.Assert(UntilAt(slot) != long.MaxValue, "only an ended entry is forgotten");
        Volatile.Write(ref _entries[slot].Node, null);
    }
}
