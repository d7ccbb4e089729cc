using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>Opens Stellar.Store the way an application does, with the options a benchmark row names.</summary>
public static class Stellar
{
    /// <summary>The fixed AES-256 key of encrypted benchmark stores (a key, not a passphrase: no KDF cost at open).</summary>
    private static readonly byte[] Key = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    /// <summary>Options for a benchmark store.</summary>
    public static StoreOptions Options(Durability durability, bool lz4 = false, bool aes = false, bool copyOnRead = false) => new()
    {
        Durability = durability,
        CopyOnRead = copyOnRead,
        Compression = lz4 ? Compression.Lz4 : Compression.None,
        EncryptionKey = aes ? Key : null,
    };

    /// <summary>Opens the store at <paramref name="directory"/> and its collection of small records.</summary>
    public static (StellarStore Store, Collection<int, SmallRecord> Records) OpenSmall(string directory, StoreOptions options, params IndexDefinition<SmallRecord>[] indexes)
    {
        var store = StellarStore.OpenAsync(directory, options).GetAwaiter().GetResult();
        return (store, store.GetCollection<int, SmallRecord>("records", r => r.Id, indexes));
    }

    /// <summary>Opens the store at <paramref name="directory"/> and its collection of large records.</summary>
    public static (StellarStore Store, Collection<int, LargeRecord> Records) OpenLarge(string directory, StoreOptions options)
    {
        var store = StellarStore.OpenAsync(directory, options).GetAwaiter().GetResult();
        return (store, store.GetCollection<int, LargeRecord>("large", r => r.Id));
    }
}
