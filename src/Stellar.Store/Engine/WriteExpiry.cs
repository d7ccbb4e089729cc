using System.Diagnostics;

namespace Stellar.Store.Engine;

/// <summary>
/// What a write says about when its record expires: nothing (the default: the collection's expiry policy decides),
/// never, or at a time.
/// </summary>
/// <remarks>
/// Why this shape: a stored record keeps its end as UTC ticks with 0 for never, where "the write said nothing" cannot be
/// told from "the write said never". A write that says never (an import's end function, or a rollback, that gives no
/// end) must not get the policy's end, so the two are kept apart until the policy is applied, once, when the write is
/// encoded; a plain <see cref="long"/> cannot reach that point.
/// </remarks>
internal readonly struct WriteExpiry
{
    private readonly long _ticks;
    private readonly bool _given;

    private WriteExpiry(long ticks)
    {
        _ticks = ticks;
        _given = true;
    }

    /// <summary>The write says nothing: the collection's policy decides, and without one the record never expires.</summary>
    public static WriteExpiry Unspecified => default;

    /// <summary>The record never expires, whatever the collection's policy.</summary>
    public static WriteExpiry Never => new(0);

    /// <summary>Whether the write gave its expiry (a time, or never), so that no policy applies.</summary>
    public bool Given => _given;

    /// <summary>The end the write gave, in UTC ticks (0: never, also when none was given).</summary>
    public long Ticks => _ticks;

    /// <summary>The record expires at <paramref name="ticks"/> (UTC ticks, after 0).</summary>
    public static WriteExpiry At(long ticks)
    {
        Debug.Assert(ticks > 0, "an end is a time after 0; 0 is never");
        return new WriteExpiry(ticks);
    }
}
