namespace Stellar.Store;

/// <summary>
/// A write was rejected because it would give two records the same key of a unique index. Nothing of the write, or of
/// the atomic batch or cross-collection write it belongs to, was stored.
/// </summary>
public sealed class UniqueConstraintException : StellarStoreException
{
    /// <summary>Creates the exception for <paramref name="indexKey"/>, held by <paramref name="holder"/>, wanted by <paramref name="key"/>.</summary>
    public UniqueConstraintException(string collection, string index, object? indexKey, object key, object holder)
        : base($"Collection '{collection}': unique index '{index}' already has '{indexKey}' (record '{holder}'), so record '{key}' cannot have it too.")
    {
        Collection = collection;
        Index = index;
        IndexKey = indexKey;
        Key = key;
        Holder = holder;
    }

    /// <summary>The collection written to.</summary>
    public string Collection { get; }

    /// <summary>The unique index's name.</summary>
    public string Index { get; }

    /// <summary>The index key both records would have.</summary>
    public object? IndexKey { get; }

    /// <summary>The primary key of the record the rejected write would have stored.</summary>
    public object Key { get; }

    /// <summary>The primary key of the record that has the index key (stored, or written earlier in the same batch).</summary>
    public object Holder { get; }
}
