namespace Stellar.Store.Indexes;

/// <summary>
/// The number a build's radix sort orders run entries of text index keys by, in ordinal order: the head
/// (<see cref="TextHead"/>) of each key after the characters every key of the build starts with alike. Entries whose
/// heads tie are then ordered by comparisons.
/// </summary>
/// <remarks>Thread safety: immutable.</remarks>
internal readonly struct RunEntryTextHeads<TIndexKey, TKey, TValue> : IRadixNumbers<RunEntry<TIndexKey, TKey, TValue>>
{
    private readonly int _shared;

    private RunEntryTextHeads(int shared) => _shared = shared;

    /// <summary>The heads of <paramref name="entries"/>, whose keys are text (or null), after the start all their keys share.</summary>
    public static RunEntryTextHeads<TIndexKey, TKey, TValue> Of(ReadOnlySpan<RunEntry<TIndexKey, TKey, TValue>> entries)
    {
        string? first = null;
        var shared = int.MaxValue;
        foreach (var entry in entries)
        {
            if (Text(entry) is not { } text)
            {
                continue;
            }

            first ??= text;
            shared = Math.Min(shared, TextHead.SharedLength(first, text));
        }

        return new(first is null ? 0 : shared);
    }

    public ulong Of(in RunEntry<TIndexKey, TKey, TValue> item) => TextHead.Of(Text(item), _shared);

    private static string? Text(in RunEntry<TIndexKey, TKey, TValue> entry) => (string?)(object?)entry.IndexKey;
}
