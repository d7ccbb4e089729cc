namespace Stellar.Store.Tests.Expiry;

/// <summary>A clock the test moves by hand; timers it creates run on real time, as the system clock's do.</summary>
public sealed class TestClock : TimeProvider
{
    private long _ticks = new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero).UtcTicks;

    public override DateTimeOffset GetUtcNow() => new(Interlocked.Read(ref _ticks), TimeSpan.Zero);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);

    /// <summary>Sets the clock back, as a player who changes the system time does.</summary>
    public void SetBack(TimeSpan by) => Interlocked.Add(ref _ticks, -by.Ticks);
}
