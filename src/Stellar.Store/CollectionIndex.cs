using Stellar.Store.Indexes;

namespace Stellar.Store;

/// <summary>
/// An ordered index of a collection, declared by <see cref="Collection{TKey,TValue}.Index{TIndexKey}(string, Func{TValue,TIndexKey}, bool)"/>: the records
/// in the order of a key computed from each value, kept by the collection's writer as it publishes each write, and
/// read without locks. Each read here answers from the newest published version, from one version for the whole
/// answer; to read records and index answers from one version together, read through
/// <see cref="CollectionSnapshot{TKey,TValue}.Index{TIndexKey}"/>.
/// </summary>
/// <remarks>
/// <para>Thread safety: every member may be called from any thread at once. Reads never lock and never wait for a
/// writer: a write's records are in the index's answers from the moment its task completes, never earlier, and an
/// atomic batch or cross-collection write is in them whole or not at all.</para>
/// <para>An index lives in memory only: it is built when declared, from the records as of the writes queued before
/// the declaration, and kept with every write after it; after the store is reopened it must be declared again. Its
/// memory cost is an entry and a list node per record (docs/indexes.md).</para>
/// <para>Index keys are ordered by their type's comparison, ordinally for strings, and item by item for tuples (their
/// strings ordinally too, on every thread whatever its culture); records with equal index keys are in primary key
/// order. A key selector that throws for a value does not reject the write: the index stops being kept, and its reads
/// throw <see cref="InvalidOperationException"/> naming the cause.</para>
/// </remarks>
/// <typeparam name="TIndexKey">The index key.</typeparam>
/// <typeparam name="TKey">The collection's key.</typeparam>
/// <typeparam name="TValue">The collection's values.</typeparam>
public sealed class CollectionIndex<TIndexKey, TKey, TValue>
    where TKey : notnull
{
    private readonly Collection<TKey, TValue> _collection;

    internal CollectionIndex(Collection<TKey, TValue> collection, OrderedIndex<TIndexKey, TKey, TValue> index, Task ready, IndexDefinition<TIndexKey, TValue> definition)
    {
        _collection = collection;
        Index = index;
        Ready = ready;
        Definition = definition;
    }

    /// <summary>The index's name, unique within its collection.</summary>
    public string Name => Index.Name;

    /// <summary>
    /// Completes when the index is built and answers reads (for snapshots taken from then on); fails when its key
    /// selector threw for a stored value (<see cref="InvalidOperationException"/>, the selector's exception inside), when
    /// a stored value kept on disk could not be read (the read's own exception: <see cref="CorruptBlockException"/> for
    /// a block damaged since the open, say), or when the collection faulted before the build. A failed index is not
    /// kept, and its name is free for another declaration.
    /// </summary>
    public Task Ready { get; }

    internal OrderedIndex<TIndexKey, TKey, TValue> Index { get; }

    /// <summary>The definition the index was declared from.</summary>
    internal IndexDefinition<TIndexKey, TValue> Definition { get; }

    internal Collection<TKey, TValue> Collection => _collection;

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.Range"/>
    public IEnumerable<TValue> Range(TIndexKey from, TIndexKey to) => Latest(view => view.Range(from, to));

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.Equal"/>
    public IEnumerable<TValue> Equal(TIndexKey key) => Latest(view => view.Equal(key));

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.All"/>
    public IEnumerable<TValue> All() => Latest(view => view.All());

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.Top"/>
    public IReadOnlyList<TValue> Top(int count)
    {
        using var snapshot = _collection.Snapshot();
        return snapshot.Index(this).Top(count);
    }

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.Page"/>
    /// <remarks>Each call reads the newest version: see <see cref="IndexContinuation{TIndexKey,TKey}"/> for what paging across versions sees.</remarks>
    public IndexPage<TIndexKey, TKey, TValue> Page(TIndexKey from, TIndexKey to, int limit, IndexContinuation<TIndexKey, TKey>? after = null)
    {
        using var snapshot = _collection.Snapshot();
        return snapshot.Index(this).Page(from, to, limit, after);
    }

    /// <inheritdoc cref="IndexView{TIndexKey,TKey,TValue}.Bottom"/>
    public IReadOnlyList<TValue> Bottom(int count)
    {
        using var snapshot = _collection.Snapshot();
        return snapshot.Index(this).Bottom(count);
    }

    /// <summary>
    /// Runs <paramref name="query"/> on a snapshot of its own, taken when enumeration starts and released when it ends
    /// or its enumerator is disposed (<c>foreach</c> does both).
    /// </summary>
    internal IEnumerable<TValue> Latest(Func<IndexView<TIndexKey, TKey, TValue>, IEnumerable<TValue>> query)
    {
        using var snapshot = _collection.Snapshot();
        foreach (var value in query(snapshot.Index(this)))
        {
            yield return value;
        }
    }
}
