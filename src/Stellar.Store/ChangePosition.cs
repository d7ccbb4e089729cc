using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace Stellar.Store;

/// <summary>
/// A point in a collection's change feed, between two changes: <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/> from a
/// position delivers every committed change after it. Each <see cref="Change{TKey,TValue}"/> carries the position
/// just after itself, so a consumer that stores the position of the last change it processed resumes with the next.
/// </summary>
/// <remarks>
/// <para>A position names a block of the collection (its sequence, which never changes and grows with every block,
/// across shards and restarts) and a record inside it, so it stays valid across restarts until compaction replaces
/// that block. A compaction replaces every block up to some sequence with the records still alive then; the feed
/// delivers those as a snapshot, whose positions name the compaction's last sequence and a record of the snapshot
/// (<see cref="IsSnapshot"/>). A snapshot position is valid until the next compaction. Positions order as the feed
/// delivers: by sequence, a compaction's snapshot after the history it replaced, then by record.</para>
/// <para>The text form (<see cref="ToString"/>, <see cref="Parse"/>) is <c>sequence.record</c> for history,
/// <c>sequence~record</c> for a snapshot, <c>start</c> and <c>now</c>; stable across versions of the store.</para>
/// <para>Thread safety: an immutable value.</para>
/// </remarks>
public readonly struct ChangePosition : IEquatable<ChangePosition>, IComparable<ChangePosition>
{
    private const ulong NowSequence = ulong.MaxValue;

    private ChangePosition(ulong sequence, uint record, bool snapshot)
    {
        Sequence = sequence;
        Record = record;
        IsSnapshot = snapshot;
    }

    /// <summary>Before every change still on disk: a feed from here starts with the oldest available change.</summary>
    public static ChangePosition Start => default;

    /// <summary>
    /// The end of the feed when the feed is asked for: a feed from here delivers every change committed after the call
    /// to <c>Changes</c>, also those committed before its enumeration starts, so that a snapshot taken after the call
    /// and the feed together miss nothing.
    /// </summary>
    public static ChangePosition Now => new(NowSequence, 0, snapshot: false);

    /// <summary>The block sequence this position is in (0 for <see cref="Start"/>); for a snapshot position, the last sequence its compaction replaced.</summary>
    public ulong Sequence { get; }

    /// <summary>The record of the block (or of the snapshot) that comes next from this position.</summary>
    public uint Record { get; }

    /// <summary>Whether the position lies in the snapshot a compaction left in place of the history it replaced.</summary>
    public bool IsSnapshot { get; }

    /// <summary>Whether this is <see cref="Now"/>, which a feed resolves to the end it finds when it is asked for.</summary>
    public bool IsNow => Sequence == NowSequence;

    /// <summary>Compares in the feed's order; <see cref="Now"/> sorts after every other position.</summary>
    public static bool operator <(ChangePosition left, ChangePosition right) => left.CompareTo(right) < 0;

    /// <inheritdoc cref="op_LessThan"/>
    public static bool operator >(ChangePosition left, ChangePosition right) => left.CompareTo(right) > 0;

    /// <inheritdoc cref="op_LessThan"/>
    public static bool operator <=(ChangePosition left, ChangePosition right) => left.CompareTo(right) <= 0;

    /// <inheritdoc cref="op_LessThan"/>
    public static bool operator >=(ChangePosition left, ChangePosition right) => left.CompareTo(right) >= 0;

    /// <summary>Whether both name the same position.</summary>
    public static bool operator ==(ChangePosition left, ChangePosition right) => left.Equals(right);

    /// <summary>Whether they name different positions.</summary>
    public static bool operator !=(ChangePosition left, ChangePosition right) => !left.Equals(right);

    /// <summary>Parses the text form written by <see cref="ToString"/>.</summary>
    /// <exception cref="FormatException">The text is not a position.</exception>
    public static ChangePosition Parse(string text) =>
        TryParse(text, out var position) ? position : throw new FormatException($"'{text}' is not a change feed position (expected 'start', 'now', 'sequence.record' or 'sequence~record').");

    /// <summary>Parses the text form written by <see cref="ToString"/>; false when <paramref name="text"/> is not one.</summary>
    public static bool TryParse([NotNullWhen(true)] string? text, out ChangePosition position)
    {
        position = default;
        switch (text)
        {
            case null:
                return false;
            case "start":
                return true;
            case "now":
                position = Now;
                return true;
        }

        var separator = text.IndexOfAny(['.', '~']);
        if (separator < 0
            || !ulong.TryParse(text.AsSpan(0, separator), NumberStyles.None, CultureInfo.InvariantCulture, out var sequence)
            || !uint.TryParse(text.AsSpan(separator + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var record)
            || sequence == NowSequence)
        {
            return false;
        }

        position = new ChangePosition(sequence, record, text[separator] == '~');
        return true;
    }

    /// <summary>The text form: <c>start</c>, <c>now</c>, <c>sequence.record</c> or <c>sequence~record</c>.</summary>
    public override string ToString() => IsNow ? "now"
        : this == Start ? "start"
        : string.Create(CultureInfo.InvariantCulture, $"{Sequence}{(IsSnapshot ? '~' : '.')}{Record}");

    /// <inheritdoc />
    public bool Equals(ChangePosition other) => Sequence == other.Sequence && Record == other.Record && IsSnapshot == other.IsSnapshot;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is ChangePosition other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(Sequence, Record, IsSnapshot);

    /// <inheritdoc />
    public int CompareTo(ChangePosition other)
    {
        var bySequence = Sequence.CompareTo(other.Sequence);
        if (bySequence != 0)
        {
            return bySequence;
        }

        var bySnapshot = IsSnapshot.CompareTo(other.IsSnapshot);
        return bySnapshot != 0 ? bySnapshot : Record.CompareTo(other.Record);
    }

    /// <summary>Before record <paramref name="record"/> of block <paramref name="sequence"/>.</summary>
    internal static ChangePosition InHistory(ulong sequence, uint record) => new(sequence, record, snapshot: false);

    /// <summary>Before record <paramref name="record"/> of the snapshot of the compaction through <paramref name="compactedThrough"/>.</summary>
    internal static ChangePosition InSnapshot(ulong compactedThrough, uint record) => new(compactedThrough, record, snapshot: true);
}
