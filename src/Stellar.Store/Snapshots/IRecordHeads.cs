namespace Stellar.Store.Snapshots;

/// <summary>What an index's build reads of a collection's records: each key's newest version, and how many are stored.</summary>
/// <remarks>Thread safety: for the collection's writer (and the builds it runs), while it applies nothing.</remarks>
internal interface IRecordHeads<TKey, TValue>
{
    /// <summary>The newest version of every key, deletions included, in no set order.</summary>
    IEnumerable<KeyValuePair<TKey, VersionNode<TValue>>> Heads { get; }

    /// <summary>The version and the number of live keys readers see now.</summary>
    PublishedState Published { get; }

    /// <summary>The newest version of <paramref name="key"/>, or null when it was never stored.</summary>
    VersionNode<TValue>? Head(TKey key);
}
