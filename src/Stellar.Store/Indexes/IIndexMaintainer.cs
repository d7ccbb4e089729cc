using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// What the collection's writer tells an index, in commit order: build from the records, serve readers from a
/// version on, then each version it applies, then how far back readers can still read. Every call is the writer's (one
/// thread at a time), but for a build beside the writer, which reads the records as of a pinned version while the
/// writer goes on (and holds back the versions it applies, to give them to the index once the build is done).
/// </summary>
internal interface IIndexMaintainer<TKey, TValue>
{
    /// <summary>The index's name, unique within its collection.</summary>
    string Name { get; }

    /// <summary>Why the index stopped being kept (its key selector threw, a build could not read a record, or it was dropped), or null.</summary>
    Exception? Failure { get; }

    /// <summary>Whether it is a unique index, which staging checks every write against (<see cref="IUniqueIndex{TKey,TValue}"/>).</summary>
    bool Unique { get; }

    /// <summary>
    /// Adds an entry for every record of <paramref name="map"/> (each key's newest version, none newer than
    /// <paramref name="version"/>, the published one), reading values on disk through <paramref name="read"/>. A key
    /// selector that throws fails the index, not the collection: then it returns false, and the index is not kept. A
    /// record that expired by <paramref name="now"/> (UTC ticks) gets its entry, which no reader sees, but holds no
    /// unique key. Readers read the index only once <see cref="Serve"/> says from which version.
    /// </summary>
    bool Build(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read, long now);

    /// <summary>
    /// After a build that succeeded, once every version up to <paramref name="version"/> (the published one) is applied
    /// to the index: readers at <paramref name="version"/> or later read it.
    /// </summary>
    void Serve(long version);

    /// <summary>
    /// After the writer stopped, at a clean close: keeps the index's order of the <paramref name="count"/> records stored
    /// at <paramref name="version"/> for the next build, if the index keeps one (<see cref="IndexOrderFiles"/>).
    /// </summary>
    void SaveOrder(long version, long count);

    /// <summary>
    /// The record <paramref name="key"/> became <paramref name="value"/>, as version node <paramref name="node"/>, or was
    /// deleted (<paramref name="node"/> null), at <paramref name="version"/>, not yet published.
    /// </summary>
    void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node);

    /// <summary>No reader reads below <paramref name="horizon"/> any more: entries that ended by then can go.</summary>
    void Trim(long horizon);
}
