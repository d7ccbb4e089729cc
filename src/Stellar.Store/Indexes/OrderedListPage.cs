namespace Stellar.Store.Indexes;

/// <summary>
/// A page of the tree an <see cref="OrderedList{T,TLead}"/> searches by: up to <see cref="Capacity"/> items in order,
/// each with its leading key beside it, so that a search compares keys in one array instead of reading an item per
/// step. A leaf's items are the list's items; a branch's are the lowest item each of its children started with.
/// </summary>
/// <remarks>
/// <para>Why this shape: a search of a skip list of a hundred thousand items reads some thirty nodes scattered over the
/// heap, each a cache miss, and keeping an index cost a write more than the rest of the write. A page's keys are a few
/// cache lines, the pages near the root stay in the cache, and a search reads about one page per level below them.</para>
/// <para>Thread safety: the list's writer changes a page in place between <see cref="BeginWrite"/> and
/// <see cref="EndWrite"/>, which make its version odd and then even again; a reader reads a page between
/// <see cref="Stable"/> and <see cref="Unchanged"/>, and starts again when the version moved (optimistic reads, no lock).
/// A reader may meanwhile see a page half changed: it only compares what it read, and keeps nothing of it unless the
/// version held.</para>
/// </remarks>
internal abstract class OrderedListPage<T, TLead>
    where T : class
{
    /// <summary>The items a page holds at most.</summary>
    public const int Capacity = 64;

    private int _version;
    private int _count;

    public TLead[] Leads { get; } = new TLead[Capacity];

    public T[] Items { get; } = new T[Capacity];

    /// <summary>The items held, from the first slot.</summary>
    public int Count
    {
        get => Volatile.Read(ref _count);
        set => Volatile.Write(ref _count, value);
    }

    /// <summary>Whether the writer took the page out of the tree: a reader that meets it starts again from the root.</summary>
    public bool Obsolete { get; private set; }

    /// <summary>Any thread: the page's version once no change of the writer is under way.</summary>
    public int Stable()
    {
        var spin = default(SpinWait);
        while (true)
        {
            var version = Volatile.Read(ref _version);
            if ((version & 1) == 0)
            {
                return version;
            }

            spin.SpinOnce();
        }
    }

    /// <summary>Any thread: whether the page is as it was at <paramref name="version"/>, so that what was read of it holds.</summary>
    public bool Unchanged(int version)
    {
        Interlocked.MemoryBarrier();
        return Volatile.Read(ref _version) == version;
    }

    /// <summary>Writer only: a change begins; readers that overlap it will start again.</summary>
    public void BeginWrite()
    {
        _version++;
        Interlocked.MemoryBarrier();
    }

    /// <summary>Writer only: the change is done.</summary>
    public void EndWrite() => Volatile.Write(ref _version, _version + 1);

    /// <summary>Writer only: the page leaves the tree.</summary>
    public void Retire()
    {
        BeginWrite();
        Obsolete = true;
        EndWrite();
    }
}
