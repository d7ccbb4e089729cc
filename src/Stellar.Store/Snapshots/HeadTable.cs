using System.Collections;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
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
    public static readonly VersionNode<TValue> Removed = VersionNode<TValue>.Create(0, default, deleted: true, shardId: 0, size: 0, next: null, location: null, expiresAt: 0);

    /// <summary>The smallest table: a prime, as every table's size is.</summary>
    private const int MinCapacity = 17;

    /// <summary>Null for a value type with the default comparer, so that the JIT inlines its equality.</summary>
    private readonly IEqualityComparer<TKey>? _comparer;
    private Table _table;
    private int _count;

    /// <param name="comparer">Compares keys; null for the default.</param>
    /// <param name="capacity">Keys to make room for up front, so that filling the table rebuilds it less often.</param>
    public HeadTable(IEqualityComparer<TKey>? comparer, int capacity = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        _table = new Table(NextPrime(Math.Max(MinCapacity, (int)Math.Min(int.MaxValue / 2, (long)capacity * 2))));
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
        for (var i = table.IndexOf(Hash(key)); ; i = i + 1 == nodes.Length ? 0 : i + 1)
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

    /// <summary>Any thread: every key stored as a value at <paramref name="version"/>, from the table published now (see <see cref="HeadScan{TKey,TValue}"/>).</summary>
    public HeadScan<TKey, TValue> Scan(long version)
    {
        var table = Volatile.Read(ref _table);
        return new HeadScan<TKey, TValue>(table.Keys, table.Nodes, version);
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
        var length = table.Nodes.Length;
        for (var i = table.IndexOf(Hash(key)); ; i = i + 1 == length ? 0 : i + 1)
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
        var next = new Table(NextPrime(Math.Max(MinCapacity, live * 2)));
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

    /// <summary>The smallest prime at least <paramref name="min"/>; only at a rebuild, so trial division is cheap enough.</summary>
    private static int NextPrime(int min)
    {
        for (var n = min | 1; ; n += 2)
        {
            var prime = true;
            for (var d = 3; prime && (long)d * d <= n; d += 2)
            {
                prime = n % d != 0;
            }

            if (prime)
            {
                return n;
            }
        }
    }

    /// <summary>One generation of the table: never resized; replaced whole by <see cref="Rebuild"/>.</summary>
    /// <remarks>
    /// Why a prime size and the hash modulo it, as <see cref="Dictionary{TKey,TValue}"/> does: sequential keys land in
    /// sequential slots, so a scan meets the nodes in the order they were made (a multiplicative hash scattered them, and
    /// a scan of 100,000 records took three times as long in cache misses), and keys that share low bits do not pile
    /// into one run of slots.
    /// </remarks>
    private sealed class Table
    {
        private readonly ulong _multiplier;

        public Table(int capacity)
        {
            Keys = new TKey[capacity];
            Nodes = new VersionNode<TValue>?[capacity];
            _multiplier = (ulong.MaxValue / (uint)capacity) + 1;
        }

        public TKey[] Keys { get; }

        public VersionNode<TValue>?[] Nodes { get; }

        /// <summary>Writer only: slots ever filled, removed ones included; one slot stays empty at least, so a probe ends.</summary>
        public int Used { get; set; }

        /// <summary>The hash modulo the size, by multiplication (Lemire's fast modulo, as the runtime's dictionaries use).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public int IndexOf(int hash) => (int)(((((_multiplier * (uint)hash) >> 32) + 1) * (uint)Nodes.Length) >> 32);
    }
}
