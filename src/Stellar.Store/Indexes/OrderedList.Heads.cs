namespace Stellar.Store.Indexes;

/// <summary>The heads of text leading keys (see <see cref="OrderedListPage{T,TLead}.Heads"/>): what a page keeps of each key after the characters its keys share, so that a search compares numbers and reads a key's text only on a tie.</summary>
internal sealed partial class OrderedList<T, TLead>
{
    /// <summary>
    /// A page that keeps heads: where <paramref name="lead"/> stands against the characters every compared leading key of
    /// <paramref name="page"/> (from slot <paramref name="first"/>, which holds one) starts with: before them all (-1),
    /// after them all (1), or among them (0), and then its <paramref name="head"/> after those characters.
    /// </summary>
    private static int Side(OrderedListPage<T, TLead> page, int first, TLead lead, out ulong head)
    {
        var text = (string?)(object?)lead;
        var shared = page.Shared;
        head = 0;
        if (shared > 0)
        {
            // Null and shorter text sort before every key of at least this many characters.
            if (text is null)
            {
                return -1;
            }

            var side = text.AsSpan(0, Math.Min(shared, text.Length)).SequenceCompareTo(((string)(object)page.Leads[first]!).AsSpan(0, shared));
            if (side != 0 || text.Length < shared)
            {
                return side != 0 ? Math.Sign(side) : -1;
            }
        }

        head = Head(text, shared);
        return 0;
    }

    /// <summary>
    /// The four characters of <paramref name="text"/> from <paramref name="from"/> (a missing one as 0), the first
    /// highest: of two texts that start with the same <paramref name="from"/> characters, the one with the lower head
    /// sorts first in ordinal order, and only equal heads need their texts compared.
    /// </summary>
    private static ulong Head(string? text, int from)
    {
        ulong head = 0;
        for (var at = from; at < from + 4; at++)
        {
            head = (head << 16) | (text is not null && at < text.Length ? text[at] : 0u);
        }

        return head;
    }

    /// <summary>
    /// Writer only, in a page whose compared keys (from its first slot, a branch's second) start with
    /// <see cref="OrderedListPage{T,TLead}.Shared"/> characters alike: their number again, from the first and the last
    /// (the keys are in order), and every head.
    /// </summary>
    private static void FillHeads(OrderedListPage<T, TLead> page)
    {
        if (page.Heads is not { } heads)
        {
            return;
        }

        var first = page is OrderedListBranch<T, TLead> ? 1 : 0;
        var count = page.Count;
        page.Shared = count - first > 1 ? SharedLength(Text(page, first), Text(page, count - 1)) : 0;
        for (var slot = first; slot < count; slot++)
        {
            heads[slot] = Head(Text(page, slot), page.Shared);
        }
    }

    /// <summary>
    /// Writer only, within a change of <paramref name="page"/>: the key just put at <paramref name="slot"/> gets its
    /// head; when it does not start with the characters the page's other compared keys share, they share fewer, and
    /// every head is made again.
    /// </summary>
    private static void KeepHead(OrderedListPage<T, TLead> page, int slot)
    {
        var first = page is OrderedListBranch<T, TLead> ? 1 : 0;
        var text = Text(page, slot);
        if (slot >= first && page.Shared > 0 && SharedLength(text, Text(page, slot == first ? first + 1 : first)) < page.Shared)
        {
            FillHeads(page);
            return;
        }

        page.Heads![slot] = Head(text, page.Shared);
    }

    /// <summary>The leading key at <paramref name="slot"/> of a page that keeps heads, as text.</summary>
    private static string? Text(OrderedListPage<T, TLead> page, int slot) => (string?)(object?)page.Leads[slot];

    /// <summary>How many characters <paramref name="x"/> and <paramref name="y"/> start with alike (none for a null).</summary>
    private static int SharedLength(string? x, string? y) => x is null || y is null ? 0 : x.AsSpan().CommonPrefixLength(y);
}
