using System.Diagnostics.CodeAnalysis;
using Stellar.Store.Snapshots;

namespace Stellar.Store;

/// <summary>
/// One stable version of a collection: <see cref="Get"/>, <see cref="Query"/> and <see cref="Count"/> all answer
/// as of the moment <see cref="Collection{TKey,TValue}.Snapshot"/> was called, while writes go on. Dispose it
/// promptly: the store keeps the older versions it needs alive until then.
/// </summary>
/// <remarks>Thread safety: any number of threads may read one snapshot concurrently; reads never lock.</remarks>
public sealed class CollectionSnapshot<TKey, TValue> : IDisposable
    where TKey : notnull
{
    private readonly VersionedMap<TKey, TValue> _map;
    private readonly Func<VersionNode<TValue>, TValue> _read;
    private readonly PublishedState _state;
    private int _disposed;

    internal CollectionSnapshot(VersionedMap<TKey, TValue> map, Func<VersionNode<TValue>, TValue> read)
    {
        _map = map;
        _read = read;
        _state = map.Pin();
    }

    /// <summary>The number of keys at this version.</summary>
    public long Count => _state.Count;

    /// <summary>The value of <paramref name="key"/> at this version, or default.</summary>
    public TValue? Get(TKey key) => TryGet(key, out var value) ? value : default;

    /// <summary>Reads <paramref name="key"/> at this version.</summary>
    public bool TryGet(TKey key, [MaybeNullWhen(false)] out TValue value)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (_map.TryGetAt(key, _state.Version, out var node))
        {
            value = _read(node);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>Every value at this version that matches <paramref name="predicate"/> (null: all), in no set order.</summary>
    public IEnumerable<TValue> Query(Func<TValue, bool>? predicate = null)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        foreach (var (_, node) in _map.EnumerateAt(_state.Version))
        {
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
            var value = _read(node);
            if (predicate is null || predicate(value))
            {
                yield return value;
            }
        }
    }

    /// <summary>Releases the version so the store can forget what only it needed.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _map.Unpin(_state.Version);
        }
    }
}
