using System.Diagnostics;

namespace Stellar.Store.Codecs;

/// <summary>
/// The block subkeys a cipher holds, at most <see cref="Capacity"/> of them, least recently used evicted first. An
/// evicted key is disposed (its <see cref="System.Security.Cryptography.AesGcm"/> instances released, its subkey
/// zeroed) as soon as no caller holds it; a later block of its shard derives it again.
/// </summary>
/// <remarks>
/// <para>Why a bound: a store reads every shard at open and, with large values on disk, keeps reading old shards, so
/// without one the cipher would hold a subkey and native AES contexts for every shard it ever touched.</para>
/// <para>Thread safety: every member may be called from any thread. One lock guards the table; the work done under
/// it is a lookup, or one HKDF derivation on a miss, while the AES work runs outside it. A key a caller holds is
/// never disposed under them: it leaves the table on eviction but lives until the last
/// <see cref="Release"/>, so for a moment more than <see cref="Capacity"/> keys can exist, never more than
/// <see cref="Capacity"/> in the table plus those in use.</para>
/// </remarks>
internal sealed class SubkeyCache : IDisposable
{
    /// <summary>The default bound: the active shards of many collections plus a reader's recent shards.</summary>
    public const int DefaultCapacity = 64;

    private readonly object _gate = new();
    private readonly Dictionary<SubkeyId, LinkedListNode<ShardKey>> _entries = new();
    private readonly LinkedList<ShardKey> _recent = new(); // most recently used first
    private readonly Func<SubkeyId, ShardKey> _create;
    private bool _disposed;

    /// <summary>A cache of at most <paramref name="capacity"/> keys, made on a miss by <paramref name="create"/>.</summary>
    public SubkeyCache(int capacity, Func<SubkeyId, ShardKey> create)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        ArgumentNullException.ThrowIfNull(create);
        Capacity = capacity;
        _create = create;
    }

    /// <summary>The most keys the table holds.</summary>
    public int Capacity { get; }

    /// <summary>The keys in the table now.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _entries.Count;
            }
        }
    }

    /// <summary>The key for <paramref name="id"/>, held for the caller until <see cref="Release"/>.</summary>
    /// <exception cref="ObjectDisposedException">The cache was disposed.</exception>
    public ShardKey Acquire(SubkeyId id)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_entries.TryGetValue(id, out var node))
            {
                _recent.Remove(node);
                _recent.AddFirst(node);
            }
            else
            {
                if (_entries.Count == Capacity)
                {
                    Evict(_recent.Last!);
                }

                node = _recent.AddFirst(_create(id));
                _entries.Add(id, node);
            }

            node.Value.Users++;
            Debug.Assert(_entries.Count <= Capacity && _entries.Count == _recent.Count);
            return node.Value;
        }
    }

    /// <summary>Ends the caller's hold on <paramref name="key"/>; disposes it if it was evicted meanwhile.</summary>
    public void Release(ShardKey key)
    {
        ArgumentNullException.ThrowIfNull(key);
        lock (_gate)
        {
            Debug.Assert(key.Users > 0, "A key was released more often than acquired.");
            key.Users--;
            if (key.Users == 0 && key.Evicted)
            {
                key.Dispose();
            }
        }
    }

    /// <summary>The keys in the table now, most recently used first: lets tests watch their subkeys.</summary>
    internal ShardKey[] Snapshot()
    {
        lock (_gate)
        {
            return _recent.ToArray();
        }
    }

    /// <summary>Evicts every key; those still held are disposed at their last release.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            while (_recent.Last is { } last)
            {
                Evict(last);
            }
        }
    }

    private void Evict(LinkedListNode<ShardKey> node)
    {
        _recent.Remove(node);
        _entries.Remove(node.Value.Id);
        node.Value.Evicted = true;
        if (node.Value.Users == 0)
        {
            node.Value.Dispose();
        }
    }
}
