using System.Runtime.CompilerServices;

namespace Stellar.Store.Snapshots;

/// <summary>
/// A walk of every key stored as a value at a version, for an index's build: the keys and heads of one table of a
/// <see cref="HeadTable{TKey,TValue}"/> in slot order, each head walked back to the version, deletions and absent keys
/// left out (expired records are kept: the writer removes them with a delete).
/// </summary>
/// <remarks>
/// <para>Why not an iterator: a build walks a million records once, in a method that runs once per index. The runtime
/// optimizes an iterator's code only after it has been called for a while, and at an open, while it compiles the rest
/// of the store, that while outlasts the walk: the walk ran several times slower than once optimized. A struct whose
/// <see cref="Next"/> the build's own loop inlines has no code of its own to wait for.</para>
/// <para>Thread safety: the table it walks is never written again once a newer one is published, and a slot's key is
/// written before its head; so any thread may walk, as readers read, while the writer goes on.</para>
/// </remarks>
internal struct HeadScan<TKey, TValue>
{
    private readonly TKey[] _keys;
    private readonly VersionNode<TValue>?[] _heads;
    private readonly long _version;
    private int _slot;

    public HeadScan(TKey[] keys, VersionNode<TValue>?[] heads, long version)
    {
        _keys = keys;
        _heads = heads;
        _version = version;
    }

    /// <summary>The next key stored as a value at the version, and its version node then; false at the end.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Next(out TKey key, out VersionNode<TValue> node)
    {
        while (_slot < _heads.Length)
        {
            var slot = _slot++;

            // The head before the key: a slot's key is written before its first head is published.
            if (Volatile.Read(ref _heads[slot]) is { } head && head.At(_version) is { } visible)
            {
                key = _keys[slot];
                node = visible;
                return true;
            }
        }

        key = default!;
        node = null!;
        return false;
    }
}
