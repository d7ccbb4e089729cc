namespace Stellar.Store.GameServer.Tests;

/// <summary>A clock the test moves by hand, so that a session's lease ends when the test says; timers run on real time.</summary>
public sealed class TestClock : TimeProvider
{
    private long _ticks;

    /// <summary>A clock at 2030-01-01 UTC.</summary>
    public TestClock()
        : this(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero))
    {
    }

    /// <summary>A clock at <paramref name="start"/>.</summary>
    public TestClock(DateTimeOffset start) => _ticks = start.UtcTicks;

    public override DateTimeOffset GetUtcNow() => new(Interlocked.Read(ref _ticks), TimeSpan.Zero);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
