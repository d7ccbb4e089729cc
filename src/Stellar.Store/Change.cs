namespace Stellar.Store;

/// <summary>
/// One committed change of a collection, as its change feed delivers it (see <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/>).
/// </summary>
/// <remarks>Thread safety: an immutable value; <see cref="Value"/> is a new instance decoded for this change.</remarks>
/// <typeparam name="TKey">The collection's key type.</typeparam>
/// <typeparam name="TValue">The collection's value type.</typeparam>
public readonly record struct Change<TKey, TValue>
{
    /// <summary>Whether the key was set or removed.</summary>
    public ChangeKind Kind { get; init; }

    /// <summary>The key that changed.</summary>
    public TKey Key { get; init; }

    /// <summary>The value the key was set to; default for a <see cref="ChangeKind.Delete"/> (a tombstone).</summary>
    public TValue? Value { get; init; }

    /// <summary>When the value expires, for a put written with an expiry; null otherwise. Its removal comes later as a delete.</summary>
    public DateTimeOffset? ExpiresAt { get; init; }

    /// <summary>The position just after this change: a feed from it continues with the next change.</summary>
    public ChangePosition Position { get; init; }

    /// <summary>
    /// Whether this is the last change of its atomic unit: an atomic batch, a cross-collection write's part, or the
    /// writes committed together in one block. The feed delivers a unit only once all of it is committed, and resuming
    /// from a position where this is set never splits one.
    /// </summary>
    public bool EndsUnit { get; init; }
}
