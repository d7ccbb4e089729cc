namespace Stellar.Store;

/// <summary>
/// What a change did to its key, as far as the stored records tell: a block holds puts and deletes only, so an
/// insert, an update and an upsert are all a <see cref="Put"/> (the feed cannot tell whether the key existed before
/// without the consumer's own state).
/// </summary>
public enum ChangeKind
{
    /// <summary>The key was set to <see cref="Change{TKey,TValue}.Value"/> (an insert, update, upsert, import, or a record of a compaction's snapshot).</summary>
    Put = 1,

    /// <summary>The key was removed (a delete, or the removal of a record that expired).</summary>
    Delete = 2,
}
