namespace Stellar.Store.Indexes;

/// <summary>
/// A unique index as the writer's staging sees it: checks each write against the records as they will be once the
/// group staged so far commits, before anything is written. Writer only.
/// </summary>
internal interface IUniqueIndex<TKey, TValue>
{
    /// <summary>
    /// Checks that record <paramref name="key"/> may become <paramref name="value"/> (or be deleted) without another
    /// record having its index key, and stages it; returns the rejection instead (nothing staged). A rejection caused by
    /// a write staged at or after <paramref name="partStart"/> (an earlier unit of the round's part being staged) comes
    /// as a <see cref="Actors.RoundConflictException"/>. Each staged change pushes its undo on <paramref name="undo"/>.
    /// </summary>
    Exception? Stage(TKey key, bool deleted, TValue? value, int partStart, List<Action> undo);

    /// <summary>Forgets the group's staged changes (it committed, or was dropped).</summary>
    void ClearStaged();
}
