using System.Diagnostics;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// A fixed-rate game loop on its own thread: tick n starts at n periods after the first, whatever the work took.
/// A tick that overruns its period makes the next one start at once (the loop does not try to catch up in a
/// burst). The work of each tick is timed into <see cref="TickStats"/>: its wall time, the time the thread was on a
/// core, and the garbage collector's pauses during it. The collections that the tick's allocations would force inside
/// a tick can be moved into the idle part of the period (see the constructor).
/// </summary>
internal sealed class TickLoop
{
    /// <summary>The least time left in a period for a collection between ticks (a gen0 collection takes about 1 ms).</summary>
    public static readonly TimeSpan MinIdleForCollection = TimeSpan.FromMilliseconds(10);

    private readonly Action<long> _tick;
    private readonly Action _afterLast;
    private readonly TickStats _stats;
    private readonly Thread _thread;
    private readonly long _idleCollectBytes;
    private long _allocatedAtCollection;
    private volatile bool _stopping;
    private bool _started;

    /// <param name="tick">The work of one tick, given the tick number.</param>
    /// <param name="afterLast">Runs on the tick thread after the last tick (to save what is still in memory).</param>
    /// <param name="stats">Where tick times go; its budget is the period.</param>
    /// <param name="idleCollectBytes">
    /// Bytes allocated (by any thread) after which the loop collects generation 0 between two ticks; 0: never.
    /// </param>
    public TickLoop(Action<long> tick, Action afterLast, TickStats stats, long idleCollectBytes = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(idleCollectBytes);
        _idleCollectBytes = idleCollectBytes;
        _tick = tick;
        _afterLast = afterLast;
        _stats = stats;
        _thread = new Thread(Run) { Name = "game tick", IsBackground = true };
    }

    public void Start()
    {
        _started = true;
        _thread.Start();
    }

    /// <summary>Lets the current tick finish, runs the after-last step, and waits for the thread to end.</summary>
    public void Stop()
    {
        _stopping = true;
        if (_started)
        {
            _thread.Join();
        }
    }

    private void Run()
    {
        var period = _stats.Budget;
        var clock = Stopwatch.StartNew();
        var next = TimeSpan.Zero;
        for (long tick = 0; !_stopping; tick++)
        {
            var started = clock.Elapsed;
            var cpu = ThreadCpuClock.Now();
            var paused = GC.GetTotalPauseDuration();
            _tick(tick);
            _stats.Record(clock.Elapsed - started, ThreadCpuClock.Now() - cpu, GC.GetTotalPauseDuration() - paused);

            next += period;
            CollectWhileIdle(next - clock.Elapsed);
            var wait = next - clock.Elapsed;
            if (wait > TimeSpan.Zero)
            {
                Thread.Sleep(wait);
            }
            else
            {
                next = clock.Elapsed;
            }
        }

        _afterLast();
    }

    /// <summary>
    /// Collects generation 0 in the idle part of the period once the process has allocated
    /// <see cref="_idleCollectBytes"/> since the last such collection, so that the collection the allocations would
    /// force anyway falls between ticks instead of inside one. Skipped when less than
    /// <see cref="MinIdleForCollection"/> is left, so it never delays the next tick.
    /// </summary>
    private void CollectWhileIdle(TimeSpan idle)
    {
        if (_idleCollectBytes <= 0 || idle < MinIdleForCollection)
        {
            return;
        }

        if (GC.GetTotalAllocatedBytes(precise: false) - _allocatedAtCollection >= _idleCollectBytes)
        {
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
            _allocatedAtCollection = GC.GetTotalAllocatedBytes(precise: false);
            _stats.CountIdleCollection();
        }
    }
}
