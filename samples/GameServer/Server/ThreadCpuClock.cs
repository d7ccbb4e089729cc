using System.Runtime.InteropServices;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// The CPU time the calling thread has run, from the kernel (Linux: <c>clock_gettime(CLOCK_THREAD_CPUTIME_ID)</c>,
/// a vDSO call without a syscall on most kernels). Used to tell a tick that worked long from one that waited for a
/// core. Elsewhere <see cref="IsAvailable"/> is false and <see cref="Now"/> returns zero.
/// </summary>
internal static class ThreadCpuClock
{
    public static bool IsAvailable { get; } = OperatingSystem.IsLinux() && Probe();

    /// <summary>The calling thread's CPU time so far.</summary>
    public static TimeSpan Now()
    {
        if (!IsAvailable || NativeMethods.ClockGetTime(NativeMethods.ThreadCpuTimeId, out var time) != 0)
        {
            return TimeSpan.Zero;
        }

        return TimeSpan.FromTicks((time.Seconds * TimeSpan.TicksPerSecond) + (time.Nanoseconds / 100));
    }

    private static bool Probe()
    {
        try
        {
            return NativeMethods.ClockGetTime(NativeMethods.ThreadCpuTimeId, out _) == 0;
        }
        catch (DllNotFoundException)
        {
            return false;
        }
        catch (EntryPointNotFoundException)
        {
            return false;
        }
    }

    private static class NativeMethods
    {
        /// <summary>CLOCK_THREAD_CPUTIME_ID on Linux.</summary>
        public const int ThreadCpuTimeId = 3;

        [DllImport("libc", EntryPoint = "clock_gettime")]
        public static extern int ClockGetTime(int clockId, out TimeSpec time);
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
