namespace Stellar.Store.Snapshots;

/// <summary>
/// What an index's build reads of a collection's records: every key's newest version, and how many are stored; either
/// the map itself, on the writer's turn, or the map as of a pinned version (<see cref="PinnedHeads{TKey,TValue}"/>), for
/// a build beside the writer.
/// </summary>
/// <remarks>Thread safety: the map's, for the collection's writer (and the builds it runs) while it applies nothing; a pinned view's, for any thread.</remarks>
internal interface IRecordHeads<TKey, TValue>
{
    /// <summary>Every key stored as a value, with its version node, in no set order.</summary>
    HeadScan<TKey, TValue> Scan();

    /// <summary>
    /// The newest version of each of <paramref name="keys"/> into the same place of <paramref name="heads"/> (null when
    /// the key is deleted or not stored). A batch, so that the lookups of many keys in random order overlap their cache
    /// misses: every key's head first, then every head's version, each pass a short loop.
    /// </summary>
    void HeadsOf(ReadOnlySpan<TKey> keys, Span<VersionNode<TValue>?> heads);

    /// <summary>The version and the number of live keys readers see now.</summary>
    PublishedState Published { get; }

}
