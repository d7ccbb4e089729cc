using System.Runtime.CompilerServices;

namespace Stellar.Store.Codecs;

/// <summary>
/// The values MessagePack's own formatters write but read back as other values: text with an unpaired UTF-16 surrogate
/// (written as UTF-8, where it becomes U+FFFD) and a <see cref="DateTime"/> of <see cref="DateTimeKind.Local"/> (written
/// in UTC and read back as UTC, another value wherever the machine's zone is not UTC). A key that does not read back as
/// itself is another key after a reopen: its record cannot be found under it, and two such keys can become one.
/// </summary>
/// <remarks>Thread safety: stateless; any thread.</remarks>
internal static class ReadBack
{
    /// <summary>
    /// Why <paramref name="key"/>, or an item of it when it is a tuple, would read back as another value (a phrase for
    /// an error message), or null when it reads back as itself. Costs one type test for a key of any other type.
    /// </summary>
    public static string? WhyNot<T>(T key)
    {
        if (typeof(T) == typeof(string))
        {
            return Unsafe.As<T, string?>(ref key) is { } text ? WhyNot(text) : null;
        }

        if (typeof(T) == typeof(DateTime))
        {
            return WhyNot(Unsafe.As<T, DateTime>(ref key));
        }

        return key is ITuple tuple ? WhyNot(tuple) : null;
    }

    /// <summary>The index of the first surrogate of <paramref name="text"/> that is not half of a pair, or -1.</summary>
    public static int UnpairedSurrogate(ReadOnlySpan<char> text)
    {
        var at = text.IndexOfAnyInRange('\uD800', '\uDFFF');
        while (at >= 0)
        {
            if (!char.IsHighSurrogate(text[at]) || at + 1 == text.Length || !char.IsLowSurrogate(text[at + 1]))
            {
                return at;
            }

            var next = text[(at + 2)..].IndexOfAnyInRange('\uD800', '\uDFFF');
            at = next < 0 ? -1 : at + 2 + next;
        }

        return -1;
    }

    private static string? WhyNot(string text) => UnpairedSurrogate(text) is var at and >= 0
        ? $"its text has an unpaired UTF-16 surrogate at index {at}, which is stored as UTF-8 and reads back as U+FFFD"
        : null;

    private static string? WhyNot(DateTime date) => date.Kind == DateTimeKind.Local
        ? "it is a DateTime of Kind Local, which is stored in UTC and reads back as UTC (pass dateTime.ToUniversalTime(), or a DateTimeOffset)"
        : null;

    private static string? WhyNot(ITuple tuple)
    {
        for (var i = 0; i < tuple.Length; i++)
        {
            var why = tuple[i] switch
            {
                string text => WhyNot(text),
                DateTime date => WhyNot(date),
                ITuple inner => WhyNot(inner),
                _ => null,
            };
            if (why is not null)
            {
                return why;
            }
        }

        return null;
    }
}
