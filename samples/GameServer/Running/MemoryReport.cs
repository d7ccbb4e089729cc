using System.Diagnostics;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// Where the process's memory stands at the end of play, beside the records the state holds, and what the garbage
/// collector did during play: the figures that show whether memory grows with the live data or with something else.
/// </summary>
internal sealed record MemoryReport(long ResidentBytes, long ManagedHeapBytes, long LiveRecords, int Gen0, int Gen1, int Gen2, TimeSpan GcPause)
{
    /// <summary>The collector's counters at the start of play, to measure play alone.</summary>
    public static (int Gen0, int Gen1, int Gen2, TimeSpan Pause) Start() =>
        (GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalPauseDuration());

    /// <summary>Measures now, against <paramref name="start"/>. The heap figure is the live heap after a full collection.</summary>
    public static MemoryReport Measure((int Gen0, int Gen1, int Gen2, TimeSpan Pause) start, long liveRecords)
    {
        var gen0 = GC.CollectionCount(0) - start.Gen0;
        var gen1 = GC.CollectionCount(1) - start.Gen1;
        var gen2 = GC.CollectionCount(2) - start.Gen2;
        var pause = GC.GetTotalPauseDuration() - start.Pause;
        var heap = GC.GetTotalMemory(forceFullCollection: true);
        using var process = Process.GetCurrentProcess();
        return new MemoryReport(process.WorkingSet64, heap, liveRecords, gen0, gen1, gen2, pause);
    }

    /// <summary>Managed bytes per live record (the whole process's heap: the server, the bots and the state).</summary>
    public double HeapBytesPerRecord => LiveRecords == 0 ? 0 : ManagedHeapBytes / (double)LiveRecords;
}
