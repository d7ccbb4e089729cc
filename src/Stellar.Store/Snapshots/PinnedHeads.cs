namespace Stellar.Store.Snapshots;

/// <summary>
/// The records of a <see cref="VersionedMap{TKey,TValue}"/> as of a pinned version, for an index built beside the
/// writer: each key's version at that version, however many the writer applies meanwhile.
/// </summary>
/// <remarks>Thread safety: any thread, without locks, while the version stays pinned.</remarks>
internal sealed class PinnedHeads<TKey, TValue> : IRecordHeads<TKey, TValue>
    where TKey : notnull
{
    private readonly VersionedMap<TKey, TValue> _map;

    public PinnedHeads(VersionedMap<TKey, TValue> map, PublishedState pinned)
    {
        _map = map;
        Published = pinned;
    }

    /// <summary>Each key's version at the pinned version, deletions left out (whether it has expired or not).</summary>
    public HeadScan<TKey, TValue> Scan() => _map.ScanAt(Published.Version);

    public PublishedState Published { get; }

    public void HeadsOf(ReadOnlySpan<TKey> keys, Span<VersionNode<TValue>?> heads) => _map.HeadsAt(keys, Published.Version, heads);
}
