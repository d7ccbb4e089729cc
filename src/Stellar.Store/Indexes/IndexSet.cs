using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// The indexes a collection's writer keeps, told of every version it applies and of every move of the horizon; and
/// the unique ones' checks of each write as it is staged, with the undo of what a rejected batch or part staged. An
/// index being built beside the writer is told nothing yet: the versions applied meanwhile wait here, and it gets them
/// in order when it is installed.
/// </summary>
/// <remarks>Thread safety: the collection writer's alone.</remarks>
internal sealed class IndexSet<TKey, TValue>
{
    private readonly List<IIndexMaintainer<TKey, TValue>> _indexes = new();
    private readonly List<IUniqueIndex<TKey, TValue>> _unique = new();

    /// <summary>How to take back each change the unique indexes staged in the group, oldest first.</summary>
    private readonly List<Action> _undo = new();

    /// <summary>The indexes being built beside the writer, each with the versions applied since its build's version.</summary>
    private readonly List<(IIndexMaintainer<TKey, TValue> Index, HeldVersions<TKey, TValue> Held)> _building = new();

    /// <summary>Whether any index is kept or being built: a commit without one does no index work at all.</summary>
    public bool Any => _indexes.Count > 0 || _building.Count > 0;

    /// <summary>
    /// Starts holding the versions applied from now on for <paramref name="index"/>, which is being built beside the
    /// writer; returns them, for the build to catch up with (see <see cref="HeldVersions{TKey,TValue}"/>).
    /// </summary>
    public HeldVersions<TKey, TValue> Building(IIndexMaintainer<TKey, TValue> index)
    {
        var held = new HeldVersions<TKey, TValue>();
        _building.Add((index, held));
        return held;
    }

    /// <summary>
    /// <paramref name="index"/>, built beside the writer (and caught up on its thread), gets every version still held
    /// for it, in order, and is kept from now on; readers read it from <paramref name="version"/>, the published one.
    /// Returns false, keeping nothing of it, when one of those versions failed it (its key selector threw).
    /// </summary>
    public bool Install(IIndexMaintainer<TKey, TValue> index, long version)
    {
        var at = _building.FindIndex(b => ReferenceEquals(b.Index, index));
        var held = _building[at].Held;
        _building.RemoveAt(at);
        held.TakeAll(index);
        if (index.Failure is not null)
        {
            return false;
        }

        Add(index);
        index.Serve(version);
        return true;
    }

    /// <summary>Where the staged changes stand now: <see cref="RollBack"/> to it takes back everything staged after.</summary>
    public int Mark => _undo.Count;

    public void Add(IIndexMaintainer<TKey, TValue> index)
    {
        _indexes.Add(index);
        if (index.Unique)
        {
            _unique.Add((IUniqueIndex<TKey, TValue>)index);
        }
    }

    public void Remove(IIndexMaintainer<TKey, TValue> index)
    {
        _building.RemoveAll(b => ReferenceEquals(b.Index, index));
        _indexes.Remove(index);
        if (index is IUniqueIndex<TKey, TValue> unique)
        {
            _unique.Remove(unique);
        }
    }

    /// <summary>
    /// Checks a write against every unique index and stages it in each (see <see cref="IUniqueIndex{TKey,TValue}.Stage"/>);
    /// on a rejection nothing of it stays staged. <paramref name="partStart"/> is the <see cref="Mark"/> where the round's
    /// part being staged began (<see cref="int.MaxValue"/> outside a part).
    /// </summary>
    public Exception? StageUnique(TKey key, bool deleted, TValue? value, int partStart)
    {
        if (_unique.Count == 0)
        {
            return null;
        }

        var mark = _undo.Count;
        foreach (var index in _unique)
        {
            if (index.Stage(key, deleted, value, partStart, _undo) is { } rejection)
            {
                RollBack(mark);
                return rejection;
            }
        }

        return null;
    }

    /// <summary>Takes back every change staged after <paramref name="mark"/>, newest first.</summary>
    public void RollBack(int mark)
    {
        for (var i = _undo.Count - 1; i >= mark; i--)
        {
            _undo[i]();
        }

        _undo.RemoveRange(mark, _undo.Count - mark);
    }

    /// <summary>The group committed or was dropped: its staged changes are forgotten.</summary>
    public void ClearStaged()
    {
        if (_undo.Count == 0)
        {
            return;
        }

        _undo.Clear();
        foreach (var index in _unique)
        {
            index.ClearStaged();
        }
    }

    /// <inheritdoc cref="IIndexMaintainer{TKey,TValue}.Applied"/>
    public void Applied(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node)
    {
        foreach (var index in _indexes)
        {
            index.Applied(key, deleted, value, version, node);
        }

        foreach (var (_, held) in _building)
        {
            held.Hold(key, deleted, value, version, node);
        }
    }

    /// <inheritdoc cref="IIndexMaintainer{TKey,TValue}.SaveOrder"/>
    public void SaveOrders(long version, long count)
    {
        foreach (var index in _indexes)
        {
            index.SaveOrder(version, count);
        }
    }

    /// <inheritdoc cref="IIndexMaintainer{TKey,TValue}.Trim"/>
    public void Trim(long horizon)
    {
        foreach (var index in _indexes)
        {
            index.Trim(horizon);
        }
    }
}
