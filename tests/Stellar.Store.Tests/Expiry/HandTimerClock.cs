namespace Stellar.Store.Tests.Expiry;

/// <summary>
/// A clock the test moves by hand whose timers run only when the test fires them, so that a test sees what the store's
/// timers do without waiting for them. It can also refuse to make timers, as the system's timers refuse a due time
/// beyond their limit: a step of a collection's load that fails after the collection's writer started.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
public sealed class HandTimerClock : TimeProvider
{
    private readonly TestClock _time = new();
    private readonly List<HandTimer> _timers = new();
    private volatile bool _refusesTimers;

    /// <summary>Whether <see cref="CreateTimer"/> throws <see cref="ArgumentOutOfRangeException"/> instead of making a timer.</summary>
    public bool RefusesTimers
    {
        get => _refusesTimers;
        set => _refusesTimers = value;
    }

    public override DateTimeOffset GetUtcNow() => _time.GetUtcNow();

    public void Advance(TimeSpan by) => _time.Advance(by);

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        if (_refusesTimers)
        {
            throw new ArgumentOutOfRangeException(nameof(dueTime), dueTime, "This clock makes no timers now.");
        }

        var timer = new HandTimer(this, callback, state);
        lock (_timers)
        {
            _timers.Add(timer);
        }

        return timer;
    }

    /// <summary>Runs the callback of every timer not disposed once, on the calling thread: what one period would run.</summary>
    public void FireTimers()
    {
        HandTimer[] timers;
        lock (_timers)
        {
            timers = _timers.ToArray();
        }

        foreach (var timer in timers)
        {
            timer.Fire();
        }
    }

    private void Remove(HandTimer timer)
    {
        lock (_timers)
        {
            _timers.Remove(timer);
        }
    }

    private sealed class HandTimer(HandTimerClock clock, TimerCallback callback, object? state) : ITimer
    {
        public void Fire() => callback(state);

        public bool Change(TimeSpan dueTime, TimeSpan period) => true;

        public void Dispose() => clock.Remove(this);

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
