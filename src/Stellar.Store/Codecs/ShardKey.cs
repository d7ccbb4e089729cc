using System.Collections.Concurrent;
using System.Diagnostics;
using System.Security.Cryptography;

namespace Stellar.Store.Codecs;

/// <summary>
/// One (collection, shard) subkey and the idle <see cref="AesGcm"/> instances keyed with it, owned by a
/// <see cref="SubkeyCache"/>.
/// </summary>
/// <remarks>
/// Thread safety: <see cref="Rent"/> and <see cref="Return"/> may run on any number of threads at once, but only
/// while the caller holds the key through <see cref="SubkeyCache.Acquire"/>; the cache disposes a key only once no
/// caller holds it, so a rent never meets a zeroed subkey. <see cref="Users"/> and <see cref="Evicted"/> belong to
/// the cache and are read and written under its lock only.
/// </remarks>
internal sealed class ShardKey : IDisposable
{
    private readonly byte[] _subkey;
    private readonly int _poolCapacity;

    // ConcurrentBag keeps a list per thread, so a thread that rents and returns finds its own instance again without
    // contention.
    private readonly ConcurrentBag<AesGcm> _idle = new();
    private int _idleCount;
    private bool _disposed;

    /// <summary>Takes ownership of <paramref name="subkey"/>, which <see cref="Dispose"/> zeroes.</summary>
    public ShardKey(SubkeyId id, byte[] subkey, int poolCapacity)
    {
        Id = id;
        _subkey = subkey;
        _poolCapacity = poolCapacity;
    }

    /// <summary>The cache's id of the key: collection id in the high half, shard id in the low half.</summary>
    public SubkeyId Id { get; }

    /// <summary>Callers between <see cref="SubkeyCache.Acquire"/> and <see cref="SubkeyCache.Release"/>.</summary>
    public int Users { get; set; }

    /// <summary>Whether the cache dropped the key; the last user's release disposes it.</summary>
    public bool Evicted { get; set; }

    /// <summary>The subkey itself, so that tests can see it zeroed.</summary>
    internal byte[] Subkey => _subkey;

    /// <summary>An idle instance keyed with the subkey, or a new one.</summary>
    public AesGcm Rent()
    {
        Debug.Assert(!_disposed, "A disposed key was rented: the cache disposed it while a caller held it.");
        if (_idle.TryTake(out var aes))
        {
            Interlocked.Decrement(ref _idleCount);
            return aes;
        }

        return new AesGcm(_subkey, AesGcmBlockCipher.TagSize);
    }

    /// <summary>Keeps <paramref name="aes"/> for the next rent, or disposes it when enough are idle.</summary>
    public void Return(AesGcm aes)
    {
        Debug.Assert(!_disposed, "A rented instance came back after its key was disposed.");
        if (Interlocked.Increment(ref _idleCount) > _poolCapacity)
        {
            Interlocked.Decrement(ref _idleCount);
            aes.Dispose();
            return;
        }

        _idle.Add(aes);
    }

    /// <summary>Releases every idle instance and zeroes the subkey. Called by the cache when no caller holds the key.</summary>
    public void Dispose()
    {
        _disposed = true;
        while (_idle.TryTake(out var aes))
        {
            aes.Dispose();
        }

        CryptographicOperations.ZeroMemory(_subkey);
    }
}
