using System.Runtime.CompilerServices;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// What every ordered index of a collection shares: its entries, which readers walk without locks, each entry carrying
/// the versions it is visible at, so that a reader at a snapshot's version keeps exactly the entries of that version's
/// records; and the writer's trimming of entries no snapshot can read any more. The entries are in two sorted parts: the
/// <see cref="Run"/> an index may be built into, and the <see cref="OrderedList{T,TLead}"/> of <see cref="Entries"/> written
/// since, which an <see cref="IndexCursor{TIndexKey,TKey,TValue}"/> merges.
/// </summary>
/// <remarks>
/// <para>Entries of replaced versions stay in the list while a pinned snapshot may read them, and go when the
/// collection's horizon passes the version that ended them (<see cref="Trim"/>), as replaced versions of records do.</para>
/// <para>Thread safety: the maintenance members (<see cref="IIndexMaintainer{TKey,TValue}"/>) are the collection
/// writer's (one thread at a time); the read members are for any thread, without locks.</para>
/// </remarks>
internal abstract class OrderedIndex<TIndexKey, TKey, TValue> : IIndexMaintainer<TKey, TValue>
    where TKey : notnull
{
    /// <summary>Writer only: the listed entries that ended, in the order of the versions that ended them.</summary>
    private readonly Queue<IndexEntry<TIndexKey, TKey, TValue>> _ended = new();

    /// <summary>Writer only: the slots of <see cref="Run"/> whose entries ended, in the order of the versions that ended them.</summary>
    private readonly Queue<int> _endedSlots = new();

    private SortedRun<TIndexKey, TKey, TValue> _run = SortedRun<TIndexKey, TKey, TValue>.Empty;

    private long _builtAt = -1;
    private Exception? _failure;

    /// <summary>
    /// Why the index stopped being kept, or null: a drop is not such a reason until the writer's turn removes the index,
    /// since the writes queued before the drop are still kept in it (and a unique index checks them against it).
    /// </summary>
    private Exception? _stopped;

    protected OrderedIndex(string collection, string name, IComparer<TIndexKey> indexKeys, IComparer<TKey> keys)
    {
        Collection = collection;
        Name = name;
        Order = new IndexEntryComparer<TIndexKey, TKey, TValue>(indexKeys, keys);
        Entries = new OrderedList<IndexEntry<TIndexKey, TKey, TValue>, TIndexKey>(Order, static entry => entry.IndexKey, indexKeys);
    }

    public string Name { get; }

    public abstract bool Unique { get; }

    /// <summary>The entries made since the build (all of them for an index built without a run), in index order.</summary>
    public OrderedList<IndexEntry<TIndexKey, TKey, TValue>, TIndexKey> Entries { get; }

    /// <summary>The entries the index was built with, when it was built into a run; set before <see cref="BuiltAt"/>.</summary>
    public SortedRun<TIndexKey, TKey, TValue> Run => Volatile.Read(ref _run);

    public IndexEntryComparer<TIndexKey, TKey, TValue> Order { get; }

    /// <summary>The version the index was built at (-1 until then): it answers for snapshots at this version or later.</summary>
    public long BuiltAt => Volatile.Read(ref _builtAt);

    /// <summary>Why the index stopped being kept (its key selector threw, a build could not read a record, or it was dropped), or null.</summary>
    public Exception? Failure => Volatile.Read(ref _failure);

    /// <summary>Why the writer stopped keeping the index (not a drop, see <see cref="MarkDropped"/>), or null: its entries stopped with it.</summary>
    protected Exception? Stopped => Volatile.Read(ref _stopped);

    /// <summary>The collection's name, for messages.</summary>
    protected string Collection { get; }

    public abstract bool Build(IRecordHeads<TKey, TValue> map, long version, Func<VersionNode<TValue>, TValue> read, long now);

    /// <summary>An index keeps no order of its own unless it says so.</summary>
    public virtual void SaveOrder(long version, long count)
    {
    }

    /// <summary>
    /// Keeps the index for a version applied (<see cref="Apply"/>). Whatever the index's own code for it throws (the key
    /// type's comparison, a user's, which the index runs on every change) stops the index, not the collection: the write
    /// is stored either way, and the index's readers are told why it is not kept any more.
    /// </summary>
    public void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        if (Stopped is not null)
        {
            return;
        }

        try
        {
            Apply(key, deleted, value, version, node);
        }
        catch (Exception e) when (StopsWhenKeepingThrows)
        {
            Fail(KeepingThrew(e));
        }
    }

    /// <summary>
    /// Trims the entries that ended by <paramref name="horizon"/>, while the index is kept: a stopped index keeps what it
    /// holds (what ended before it stopped, no more) until it is dropped. A comparison that throws here stops it too.
    /// </summary>
    public void Trim(long horizon)
    {
        if (Stopped is not null)
        {
            return;
        }

        try
        {
            while (_ended.TryPeek(out var ended) && ended.Until <= horizon)
            {
                Entries.Remove(ended);
                _ended.Dequeue();
            }

            var run = _run;
            while (_endedSlots.TryPeek(out var slot) && run.UntilAt(slot) <= horizon)
            {
                _endedSlots.Dequeue();
                run.Forget(slot);
            }
        }
        catch (Exception e) when (StopsWhenKeepingThrows)
        {
            Fail(KeepingThrew(e));
        }
    }

    /// <summary>
    /// Any thread: the entries a reader at <paramref name="version"/> (at or after <see cref="BuiltAt"/>) sees, in index
    /// order, from the first at or after <paramref name="start"/> (from the first of all when null).
    /// </summary>
    public IEnumerable<IndexHit<TIndexKey, TKey, TValue>> Ascending(IndexEntry<TIndexKey, TKey, TValue>? start, long version)
    {
        var cursor = IndexCursor<TIndexKey, TKey, TValue>.Ascending(this, start, version);
        while (cursor.MoveNext(out var hit))
        {
            yield return hit;
        }
    }

    /// <summary>
    /// Any thread: the index is dropped. Reads already under way answer at their versions; new ones are refused, since
    /// the writes from now on are not kept in it. The writer keeps it until its turn removes it: the writes queued
    /// before the drop are kept in it and, for a unique index, checked against it as the writes before them left it.
    /// </summary>
    public void MarkDropped() => Volatile.Write(ref _failure, new InvalidOperationException($"Index '{Name}' was dropped."));

    /// <summary>Writer only: a new entry of record <paramref name="key"/> under <paramref name="indexKey"/> from <paramref name="version"/>, led to <paramref name="node"/>.</summary>
    protected static IndexEntry<TIndexKey, TKey, TValue> NewEntry(TIndexKey indexKey, TKey key, long version, VersionNode<TValue> node) =>
        new(indexKey, key, version, node);

    /// <summary>
    /// Writer only: <paramref name="entry"/>, in the list, ends at <paramref name="version"/>, and goes once no snapshot
    /// can read it: at once when it began at that version (the record left the key it took earlier in the same commit
    /// group), which no snapshot ever sees, so that the list never holds two entries of one record, key and version.
    /// </summary>
    protected void End(IndexEntry<TIndexKey, TKey, TValue> entry, long version)
    {
        entry.End(version);
        if (entry.From == version)
        {
            Entries.Remove(entry);
            return;
        }

        _ended.Enqueue(entry);
    }

    /// <summary>Writer only: the entry of slot <paramref name="slot"/> of the run ends at <paramref name="version"/>, and its node goes once no snapshot can read it.</summary>
    protected void EndSlot(int slot, long version)
    {
        _run.End(slot, version);
        _endedSlots.Enqueue(slot);
    }

    /// <summary>Writer only, during the build: the entries the index was built with, which readers see from <see cref="Serve"/> on.</summary>
    protected void Install(SortedRun<TIndexKey, TKey, TValue> run) => Volatile.Write(ref _run, run);

    /// <summary>Writer only: the index is built and up to date at <paramref name="version"/>; readers may read from now on.</summary>
    public void Serve(long version) => Volatile.Write(ref _builtAt, version);

    /// <summary>The index is not kept any more (nor built): reads throw <paramref name="failure"/>.</summary>
    protected void Fail(Exception failure)
    {
        Volatile.Write(ref _stopped, failure);
        Volatile.Write(ref _failure, failure);
    }

    /// <summary>
    /// The failure of a key selector that threw for a value, saying how to recover without reopening the store: an index
    /// that answered is dropped before its name is declared again; one that never answered left its name free.
    /// </summary>
    protected InvalidOperationException SelectorThrew(Exception cause) => new(BuiltAt >= 0
        ? $"Index '{Name}' is not kept any more: its key selector threw ({cause.Message}). Fix the selector, drop the index (DropIndexAsync) and declare it again."
        : $"Index '{Name}' was not built: its key selector threw ({cause.Message}). Fix the selector and declare the index again.", cause);

    /// <summary>
    /// Whether an exception out of <see cref="Apply"/> or <see cref="Trim"/> stops the index (true: an index a user
    /// declared, whose key type's comparison is the user's) rather than going on to the writer, which faults the
    /// collection (an index of the store's own, which nothing else would tell of its failure).
    /// </summary>
    protected virtual bool StopsWhenKeepingThrows => true;

    /// <summary>Writer only: the record <paramref name="key"/> was applied at <paramref name="version"/> (see <see cref="IIndexMaintainer{TKey,TValue}.Applied"/>).</summary>
    protected abstract void Apply(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node);

    /// <summary>
    /// The failure of an index whose keeping threw <paramref name="cause"/> (its selector's own exceptions are
    /// <see cref="SelectorThrew"/>'s): most likely the key type's comparison; the index's entries may be half changed, so
    /// it answers no more.
    /// </summary>
    protected InvalidOperationException KeepingThrew(Exception cause) => new(
        $"Index '{Name}' is not kept any more: keeping it threw ({cause.Message}), most likely in comparing its keys. The writes were stored. Fix the key type's comparison, drop the index (DropIndexAsync) and declare it again.", cause);

    /// <summary>
    /// Why a build that threw <paramref name="thrown"/> failed: the read's own exception when a record's value could not
    /// be read (a damaged block, say: <see cref="CorruptBlockException"/>, or an I/O error), the key selector's otherwise.
    /// </summary>
    protected Exception BuildFailed(Exception thrown) => thrown is RecordReadFailedException { InnerException: { } read } ? read : SelectorThrew(thrown);

    /// <summary>
    /// A build's value of <paramref name="head"/>: in memory, or read by <paramref name="read"/> from its shard, whose
    /// failure is thrown as a <see cref="RecordReadFailedException"/> so that <see cref="BuildFailed"/> tells it from the
    /// key selector's.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected static TValue ValueOf(VersionNode<TValue> head, Func<VersionNode<TValue>, TValue> read) =>
        head.InMemory ? head.Value! : Read(head, read);

    /// <summary>The read of <see cref="ValueOf"/>, apart, so that the value in memory costs no call.</summary>
    private static TValue Read(VersionNode<TValue> head, Func<VersionNode<TValue>, TValue> read)
    {
        try
        {
            return read(head);
        }
        catch (Exception e)
        {
            throw new RecordReadFailedException(e);
        }
    }
}
