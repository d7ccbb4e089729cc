namespace Stellar.Store;

/// <summary>An insert was rejected because the key already exists. Nothing was written.</summary>
public sealed class DuplicateKeyException : StellarStoreException
{
    /// <summary>Creates the exception for <paramref name="key"/> in <paramref name="collection"/>.</summary>
    public DuplicateKeyException(string collection, object key)
        : base($"Collection '{collection}' already holds key '{key}'.")
    {
        Collection = collection;
        Key = key;
    }

    /// <summary>The collection the insert targeted.</summary>
    public string Collection { get; }

    /// <summary>The duplicate key.</summary>
    public object Key { get; }
}
