using System.Diagnostics;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// A fixed-rate game loop on its own thread: tick n starts at n periods after the first, whatever the work took.
/// A tick that overruns its period makes the next one start at once (the loop does not try to catch up in a
/// burst). The work of each tick is timed into <see cref="TickStats"/>.
/// </summary>
internal sealed class TickLoop
{
    private readonly Action<long> _tick;
    private readonly Action _afterLast;
    private readonly TickStats _stats;
    private readonly Thread _thread;
    private volatile bool _stopping;
    private bool _started;

    /// <param name="tick">The work of one tick, given the tick number.</param>
    /// <param name="afterLast">Runs on the tick thread after the last tick (to save what is still in memory).</param>
    /// <param name="stats">Where tick times go; its budget is the period.</param>
    public TickLoop(Action<long> tick, Action afterLast, TickStats stats)
    {
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
            _tick(tick);
            _stats.Record(clock.Elapsed - started);

            next += period;
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
}
