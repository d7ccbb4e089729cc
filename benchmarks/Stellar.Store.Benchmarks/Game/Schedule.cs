namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// The latencies of one writer or reader of the game mix, each measured from the operation's intended start, and
/// the operations that were due before the deadline but never started. Used by one caller only.
/// </summary>
internal sealed class Schedule
{
    /// <summary>Latency in microseconds, once per update (or query).</summary>
    public List<double> Latencies { get; } = new();

    /// <summary>Updates (or queries) due before the deadline that never started.</summary>
    public long MissedCount { get; private set; }

    /// <summary>Records an operation of <paramref name="weight"/> updates that completed <paramref name="latency"/> after its intended start.</summary>
    public void Completed(TimeSpan latency, int weight)
    {
        for (var i = 0; i < weight; i++)
        {
            Latencies.Add(latency.TotalMicroseconds);
        }
    }

    /// <summary>
    /// Counts every operation from number <paramref name="next"/> whose intended start fell before the deadline, and
    /// records for each its wait until <paramref name="now"/> (what it had waited so far: a lower bound).
    /// </summary>
    public void Missed(TimeSpan now, TimeSpan tick, int next, TimeSpan deadline, int weight)
    {
        for (var k = next; tick * k < deadline; k++)
        {
            var waited = now - (tick * k);
            Completed(waited > TimeSpan.Zero ? waited : TimeSpan.Zero, weight);
            MissedCount += weight;
        }
    }
}
