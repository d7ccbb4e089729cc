namespace Stellar.Store.Indexes;

/// <summary>
/// A number of four characters of a text, which orders texts that start alike as ordinal order does: of two texts that
/// start with the same <c>from</c> characters, the one with the lower head sorts first, and only equal heads need the
/// texts compared.
/// </summary>
/// <remarks>Thread safety: stateless.</remarks>
internal static class TextHead
{
    /// <summary>The four characters of <paramref name="text"/> from <paramref name="from"/> (a missing one, or a null text's, as 0), the first highest.</summary>
    public static ulong Of(string? text, int from)
    {
        ulong head = 0;
        for (var at = from; at < from + 4; at++)
        {
            head = (head << 16) | (text is not null && at < text.Length ? text[at] : 0u);
        }

        return head;
    }

    /// <summary>How many characters <paramref name="x"/> and <paramref name="y"/> start with alike (none for a null).</summary>
    public static int SharedLength(string? x, string? y) => x is null || y is null ? 0 : x.AsSpan().CommonPrefixLength(y);
}
