namespace Stellar.Store.Snapshots;

/// <summary>
/// The time by which an open store decides what has expired (UTC ticks): the store's clock, except that it never goes
/// back past a time a decision was made at, so that a record once gone stays gone when the clock is set back, as
/// players do. One per store, shared by its collections and its snapshots, so that they agree.
/// </summary>
/// <remarks>
/// <para>Why this shape: a point read of a record that expires reads the time on every call, from many threads at
/// once, and raising a shared high-water mark on each would make those reads contend for one cache line. So
/// <see cref="Now"/> writes nothing: it is the clock's reading or the mark, whichever is later; and the mark is raised
/// only where a decision depends on it. A decision over every record at one time (a count, a snapshot, the writer's
/// removal and checks, an index build) takes its time from <see cref="Observe"/>, which raises the mark to it; a point
/// read that finds a record expired raises the mark to that record's end with <see cref="Passed"/>, at most one
/// compare-and-swap per record, since the mark is past the end afterwards. A record is found expired only at a time
/// at or after its end, and the mark is past that end before the read returns, so every later time is too.</para>
/// <para>The mark lives in memory: a store opened again with its clock set back starts from the clock (see
/// docs/expiry.md).</para>
/// <para>Thread safety: any thread; lock-free.</para>
/// </remarks>
internal sealed class ExpiryClock
{
    private long _mark;

    public ExpiryClock(TimeProvider provider) => Provider = provider;

    /// <summary>The store's clock, for timers (which run on its time, set back or not).</summary>
    public TimeProvider Provider { get; }

    /// <summary>The time now: the clock's reading, or the latest time a decision was made at if the clock is behind it. Writes nothing.</summary>
    public long Now => Math.Max(Provider.GetUtcNow().UtcTicks, Volatile.Read(ref _mark));

    /// <summary>The time now, which no later time will be before: for a decision over every record at one time.</summary>
    public long Observe()
    {
        var now = Now;
        Passed(now);
        return now;
    }

    /// <summary>Makes sure no later time is before <paramref name="ticks"/> (UTC): a record that ended then was found expired.</summary>
    public void Passed(long ticks)
    {
        var mark = Volatile.Read(ref _mark);
        while (ticks > mark)
        {
            var found = Interlocked.CompareExchange(ref _mark, ticks, mark);
            if (found == mark)
            {
                return;
            }

            mark = found;
        }
    }
}
