namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// One tick, in milliseconds: its wall time, the time the tick thread ran on a core (zero where the OS does not say),
/// and the garbage collector's pause time during it. Wall time neither on a core nor in a GC pause is time the tick
/// thread waited for a core. A collection the tick thread ran itself counts both on a core and as a pause, so that
/// wait is a lower bound.
/// </summary>
internal readonly record struct TickSample(double Wall, double OnCpu, double GcPause)
{
    /// <summary>At least this much wall time the thread spent off every core, and not paused by the GC.</summary>
    public double WaitingForCore => Math.Max(0, Wall - OnCpu - GcPause);
}
