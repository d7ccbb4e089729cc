using Stellar.Store.Indexes;

namespace Stellar.Store;

/// <summary>Makes the index definitions that a constructor cannot tell apart: those of several keys per record.</summary>
public static class IndexDefinition
{
    /// <summary>
    /// An index named <paramref name="name"/> under which each record appears once per distinct key
    /// <paramref name="keysSelector"/> gives it (an item under each of its tags; none for an empty or null sequence):
    /// the index <see cref="Collection{TKey,TValue}.IndexMany{TIndexKey}"/> declares. It cannot be unique.
    /// </summary>
    /// <exception cref="ArgumentException">The name is empty, or the index key has no order of its own.</exception>
    public static IndexDefinition<TIndexKey, TValue> Many<TIndexKey, TValue>(string name, Func<TValue, IEnumerable<TIndexKey>?> keysSelector) =>
        new(name, keysSelector);
}

/// <summary>
/// An ordered index to declare with a collection, whatever its key type: pass definitions to
/// <see cref="StellarStore.GetCollection{TKey,TValue}(string, Func{TValue,TKey}, IndexDefinition{TValue}[])"/> so that
/// the load builds the indexes before it hands the collection out, and get each one's handle with
/// <see cref="Collection{TKey,TValue}.Index{TIndexKey}(IndexDefinition{TIndexKey,TValue})"/>. Made as an
/// <see cref="IndexDefinition{TIndexKey,TValue}"/>.
/// </summary>
/// <remarks>Thread safety: immutable; one definition may be used by any number of stores and threads.</remarks>
/// <typeparam name="TValue">The collection's values.</typeparam>
public abstract class IndexDefinition<TValue>
{
    private protected IndexDefinition(string name, bool unique)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        Name = name;
        Unique = unique;
    }

    /// <summary>The index's name, unique within its collection.</summary>
    public string Name { get; }

    /// <summary>Whether no two records may have equal index keys.</summary>
    public bool Unique { get; }

    /// <summary>The index of this definition on collection <paramref name="collection"/>, not built yet.</summary>
    internal abstract IIndexMaintainer<TKey, TValue> Create<TKey>(string collection, IndexOrderFiles? orders)
        where TKey : notnull;

    /// <summary>Gives <paramref name="collection"/> the handle of <paramref name="index"/>, built at its load or not (<paramref name="failure"/>).</summary>
    internal abstract void Attach<TKey>(Collection<TKey, TValue> collection, IIndexMaintainer<TKey, TValue> index, Exception? failure)
        where TKey : notnull;

    /// <summary>Declares the index on <paramref name="collection"/>, already loaded, unless it has it.</summary>
    internal abstract void Declare<TKey>(Collection<TKey, TValue> collection)
        where TKey : notnull;
}

/// <summary>
/// An ordered index on the key <typeparamref name="TIndexKey"/> computed from each value, by one key selector (a record
/// under one key) or, made by <see cref="IndexDefinition.Many{TIndexKey,TValue}"/>, by a selector of several keys (a
/// record under each). Declared with a collection's load (<see cref="StellarStore.GetCollection{TKey,TValue}(string, Func{TValue,TKey}, IndexDefinition{TValue}[])"/>)
/// or on a loaded collection (<see cref="Collection{TKey,TValue}.Index{TIndexKey}(IndexDefinition{TIndexKey,TValue})"/>),
/// it is the index <see cref="Collection{TKey,TValue}.Index{TIndexKey}(string, Func{TValue,TIndexKey}, bool)"/> or
/// <see cref="Collection{TKey,TValue}.IndexMany{TIndexKey}"/> declare: the same order, answers and costs.
/// </summary>
/// <remarks>
/// Thread safety: immutable; one definition may be used by any number of stores and threads. The key selector runs as
/// the collection's indexes' do: on the writer, for each value written, and on a build's thread, never on two threads
/// at once; it must be fast and must not block.
/// </remarks>
/// <typeparam name="TIndexKey">The index key.</typeparam>
/// <typeparam name="TValue">The collection's values.</typeparam>
public sealed class IndexDefinition<TIndexKey, TValue> : IndexDefinition<TValue>
{
    private readonly Func<TValue, TIndexKey>? _keySelector;
    private readonly Func<TValue, IEnumerable<TIndexKey>?>? _keysSelector;

    /// <summary>An index named <paramref name="name"/> on the key <paramref name="keySelector"/> computes from each value; with <paramref name="unique"/>, no two records may share one.</summary>
    /// <exception cref="ArgumentException">The name is empty, or the index key has no order of its own (it must implement <see cref="IComparable{T}"/>; a tuple, in every item).</exception>
    public IndexDefinition(string name, Func<TValue, TIndexKey> keySelector, bool unique = false)
        : base(name, unique)
    {
        ArgumentNullException.ThrowIfNull(keySelector);
        _ = IndexOrder.Of<TIndexKey>("The index key");
        _keySelector = keySelector;
    }

    /// <summary>The definition <see cref="IndexDefinition.Many{TIndexKey,TValue}"/> makes.</summary>
    internal IndexDefinition(string name, Func<TValue, IEnumerable<TIndexKey>?> keysSelector)
        : base(name, unique: false)
    {
        ArgumentNullException.ThrowIfNull(keysSelector);
        _ = IndexOrder.Of<TIndexKey>("The index key");
        _keysSelector = keysSelector;
    }

    internal override IIndexMaintainer<TKey, TValue> Create<TKey>(string collection, IndexOrderFiles? orders) =>
        Create<TKey>(collection, orders, IndexOrder.Of<TKey>("The collection's key"));

    /// <summary>The index of this definition, with <paramref name="keys"/>, the order of the collection's keys.</summary>
    internal OrderedIndex<TIndexKey, TKey, TValue> Create<TKey>(string collection, IndexOrderFiles? orders, IComparer<TKey> keys)
        where TKey : notnull =>
        _keySelector is not null
            ? new SecondaryIndex<TIndexKey, TKey, TValue>(collection, Name, _keySelector, Unique, IndexOrder.Of<TIndexKey>("The index key"), keys, keyEquality: null, orders)
            : new MultiKeyIndex<TIndexKey, TKey, TValue>(collection, Name, _keysSelector!, IndexOrder.Of<TIndexKey>("The index key"), keys, keyEquality: null);

    internal override void Attach<TKey>(Collection<TKey, TValue> collection, IIndexMaintainer<TKey, TValue> index, Exception? failure) =>
        collection.AttachLoaded(this, (OrderedIndex<TIndexKey, TKey, TValue>)index, failure);

    internal override void Declare<TKey>(Collection<TKey, TValue> collection) => collection.Index(this);
}
