using System.Collections;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Stellar.Store.Snapshots;

/// <summary>
/// The head of each key's version chain: an open-addressing hash table (linear probing) with one writer and any number
/// of lock-free readers.
/// </summary>
/// <remarks>
/// <para>Why not a <see cref="System.Collections.Concurrent.ConcurrentDictionary{TKey,TValue}"/>: it keeps a 40-byte
/// node per key beside our version node, and a reader follows one more reference. Here a key costs a slot in two
/// arrays (its key and its head) and nothing else.</para>
/// <para>Why readers are safe without a lock: a slot's key is written once, before the slot's first head is published
/// with a release write, and never changes while the table is in use; a slot is never given to another key. So a
/// reader that sees a head in a slot sees that slot's key. Replacing a key's head is one reference write, so a reader
/// sees the old head or the new one, each the start of a valid chain. Removing a key writes <see cref="Removed"/> (a
/// deletion at version 0, which every reader reads as "absent") and keeps the key, so a later insert of the same key
/// takes the same slot and no probe ever finds the key in two places. Growing, or dropping removed slots, builds a new
/// table from the live heads and publishes it with one release write; the old table is never written again, and a
/// reader still in it sees every head it had, which (being newer than any version the reader already read) still
/// leads to that reader's answer. Only the writer calls <see cref="Find"/>, <see cref="Set"/> and <see cref="Remove"/>.</para>
/// </remarks>
internal sealed class HeadTable<TKey, TValue> : IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>>
    where TKey : notnull
{
    /// <summary>The head of a removed key's slot: a deletion older than any version, so every reader finds nothing.</summary>
    public static readonly VersionNode<TValue> Removed = VersionNode<TValue>.Create(0, default, deleted: true, shardId: 0, size: 0, next: null, location: null);

    private const int MinCapacity = 16;

    /// <summary>Null for a value type with the default comparer, so that the JIT inlines its equality.</summary>
    private readonly IEqualityComparer<TKey>? _comparer;
    private Table _table = new(MinCapacity);
    private int _count;

    public HeadTable(IEqualityComparer<TKey>? comparer)
    {
        _comparer = typeof(TKey).IsValueType && (comparer is null || ReferenceEquals(comparer, EqualityComparer<TKey>.Default))
            ? null
            : comparer ?? EqualityComparer<TKey>.Default;
    }

    /// <summary>Keys with a head, deletions not yet cut included.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Any thread: the head of <paramref name="key"/>, which is <see cref="Removed"/> when the key was removed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetValue(TKey key, [MaybeNullWhen(false)] out VersionNode<TValue> head)
    {
        var table = Volatile.Read(ref _table);
        var nodes = table.Nodes;
        var keys = table.Keys;
        var mask = nodes.Length - 1;
        for (var i = table.IndexOf(Hash(key)); ; i = (i + 1) & mask)
        {
            var node = Volatile.Read(ref nodes[i]);
            if (node is null)
            {
                head = null;
                return false;
            }

            if (Equal(keys[i], key))
            {
                head = node;
                return true;
            }
        }
    }

    /// <summary>Writer only: the head of <paramref name="key"/>, or null when it has none.</summary>
    public VersionNode<TValue>? Find(TKey key)
    {
        var table = _table;
        var i = Probe(table, key, out var found);
        return found && !ReferenceEquals(table.Nodes[i], Removed) ? table.Nodes[i] : null;
    }

    /// <summary>Writer only: makes <paramref name="head"/> the head of <paramref name="key"/>.</summary>
    public void Set(TKey key, VersionNode<TValue> head)
    {
        Debug.Assert(!ReferenceEquals(head, Removed), "Remove, not Set, removes a key");
        var table = _table;
        var i = Probe(table, key, out var found);
        if (found)
        {
            if (ReferenceEquals(table.Nodes[i], Removed))
            {
                Volatile.Write(ref _count, _count + 1);
            }

            Volatile.Write(ref table.Nodes[i], head);
            return;
        }

        if ((table.Used + 1) * 4L > table.Nodes.Length * 3L)
        {
            table = Rebuild(_count + 1);
            i = Probe(table, key, out found);
            Debug.Assert(!found, "a rebuilt table holds only the keys that had a head");
        }

        // The key before the head: a reader that sees the head must see its key.
        table.Keys[i] = key;
        Volatile.Write(ref table.Nodes[i], head);
        table.Used++;
        Volatile.Write(ref _count, _count + 1);
    }

    /// <summary>Writer only: removes <paramref name="key"/> if its head is still <paramref name="head"/>.</summary>
    public bool Remove(TKey key, VersionNode<TValue> head)
    {
        var table = _table;
        var i = Probe(table, key, out var found);
        if (!found || !ReferenceEquals(table.Nodes[i], head) || ReferenceEquals(head, Removed))
        {
            return false;
        }

        Volatile.Write(ref table.Nodes[i], Removed);
        Volatile.Write(ref _count, _count - 1);
        return true;
    }

    /// <summary>Any thread: every key with a head, in no set order, from the table published when enumeration starts.</summary>
    public IEnumerator<KeyValuePair<TKey, VersionNode<TValue>>> GetEnumerator()
    {
        var table = Volatile.Read(ref _table);
        var nodes = table.Nodes;
        for (var i = 0; i < nodes.Length; i++)
        {
            var node = Volatile.Read(ref nodes[i]);
            if (node is not null && !ReferenceEquals(node, Removed))
            {
                yield return new KeyValuePair<TKey, VersionNode<TValue>>(table.Keys[i], node);
            }
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int Hash(TKey key) => _comparer is null ? EqualityComparer<TKey>.Default.GetHashCode(key) : _comparer.GetHashCode(key);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool Equal(TKey a, TKey b) => _comparer is null ? EqualityComparer<TKey>.Default.Equals(a, b) : _comparer.Equals(a, b);

    /// <summary>The slot that holds <paramref name="key"/> (found), or the empty slot where it would go.</summary>
    private int Probe(Table table, TKey key, out bool found)
    {
        var mask = table.Nodes.Length - 1;
        for (var i = table.IndexOf(Hash(key)); ; i = (i + 1) & mask)
        {
            if (table.Nodes[i] is null)
            {
                found = false;
                return i;
            }

            if (Equal(table.Keys[i], key))
            {
                found = true;
                return i;
            }
        }
    }

    /// <summary>Copies the live heads into a new table at most half full for <paramref name="live"/> keys, then publishes it.</summary>
    private Table Rebuild(int live)
    {
        var next = new Table((int)Math.Max(MinCapacity, BitOperations.RoundUpToPowerOf2((uint)live * 2)));
        var old = _table;
        for (var i = 0; i < old.Nodes.Length; i++)
        {
            if (old.Nodes[i] is { } node && !ReferenceEquals(node, Removed))
            {
                var slot = Probe(next, old.Keys[i], out _);
                next.Keys[slot] = old.Keys[i];
                next.Nodes[slot] = node;
                next.Used++;
            }
        }

        Volatile.Write(ref _table, next);
        return next;
    }

    /// <summary>One generation of the table: never resized; replaced whole by <see cref="Rebuild"/>.</summary>
    private sealed class Table
    {
        public Table(int capacity)
        {
            Debug.Assert(BitOperations.IsPow2(capacity), "the index is the top bits of a multiplicative hash");
            Keys = new TKey[capacity];
            Nodes = new VersionNode<TValue>?[capacity];
            _shift = 32 - BitOperations.Log2((uint)capacity);
        }

        private readonly int _shift;

        public TKey[] Keys { get; }

        public VersionNode<TValue>?[] Nodes { get; }

        /// <summary>Writer only: slots ever filled, removed ones included; one slot stays empty at least, so a probe ends.</summary>
        public int Used { get; set; }

        /// <summary>Fibonacci hashing: spreads sequential keys and weak hash codes over the whole table.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public int IndexOf(int hash) => (int)(((uint)hash * 0x9E3779B9u) >> _shift);
    }
}
