namespace Stellar.Store.Indexes;

/// <summary>
/// A page of the tree an <see cref="OrderedList{T,TLead}"/> searches by: up to <see cref="Capacity"/> items in order,
/// each with its leading key beside it in the page's own memory, so that a search compares keys in the page instead of
/// reading an item per step. A leaf's items are the list's items; a branch's are the lowest item each of its children started with.
/// </summary>
/// <remarks>
/// <para>Why this shape: a search of a skip list of a hundred thousand items reads some thirty nodes scattered over the
/// heap, each a cache miss, and keeping an index cost a write more than the rest of the write. A page's keys are a few
/// cache lines of the page itself (not of arrays it refers to), the pages near the root stay in the cache, and a search
/// reads about one page per level below them.</para>
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
    private OrderedListSlots<TLead> _leads;
    private OrderedListSlots<T> _items;

    /// <summary>A page whose leading keys are text keeps the head of each (<paramref name="heads"/>, see <see cref="Heads"/>).</summary>
    protected OrderedListPage(bool heads)
    {
        Heads = heads ? new ulong[Capacity] : null;
    }

    /// <summary>The leading keys of the items, in the page's own memory: a search reads no other object for them.</summary>
    public Span<TLead> Leads => _leads;

    /// <summary>The items, in the page's own memory.</summary>
    public Span<T> Items => _items;

    /// <summary>
    /// For text leading keys, null otherwise: the four characters of each leading key that follow the
    /// <see cref="Shared"/> ones every compared key of the page starts with, as one number that orders as they do, so
    /// that a search compares numbers and reads a key's text only when two heads tie.
    /// </summary>
    public ulong[]? Heads { get; }

    /// <summary>With <see cref="Heads"/>: how many characters every compared leading key of the page starts with alike.</summary>
    public int Shared { get; set; }

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
