namespace Stellar.Store.Snapshots;

/// <summary>
/// What a store snapshot needs of each collection's map, whatever its key and value types: its published state, and
/// a pin at a version of it (see <see cref="VersionedMap{TKey,TValue}"/>).
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal interface IPinnable
{
    /// <summary>The newest published state.</summary>
    PublishedState Published { get; }

    /// <summary>
    /// Pins <paramref name="version"/>, which is <paramref name="expected"/>'s version or, for a round's part, the one
    /// before it, if <paramref name="expected"/> is still the published state once the pin is registered; else pins
    /// nothing and returns false (a newer publish may have cut what the version needs: read the state again).
    /// </summary>
    bool TryPinAt(long version, PublishedState expected);

    /// <summary>Releases a pin taken by <see cref="TryPinAt"/>.</summary>
    void Unpin(long version);
}
