using System.Diagnostics;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// Where the process's memory stands at the end of play, beside the records the state holds, and what the garbage
/// collector did during play: the figures that show whether memory grows with the live data or with something else.
/// The resident set splits into the live managed heap, the memory the GC holds committed beyond it (its headroom
/// and fragmentation), and the rest (the runtime, compiled code, thread stacks, native buffers).
/// </summary>
internal sealed record MemoryReport(long ResidentBytes, long ManagedHeapBytes, long LiveRecords, int Gen0, int Gen1, int Gen2, TimeSpan GcPause)
{
    /// <summary>The resident set when play started.</summary>
    public long ResidentAtStartBytes { get; init; }

    /// <summary>Memory the GC holds committed, after the full collection that measured the live heap.</summary>
    public long GcCommittedBytes { get; init; }

    /// <summary>Committed by the GC but not live: headroom for new allocations, and fragmentation.</summary>
    public long GcHeadroomBytes => Math.Max(0, GcCommittedBytes - ManagedHeapBytes);

    /// <summary>Resident but not committed by the GC: the runtime, code, thread stacks, native buffers.</summary>
    public long OtherResidentBytes => Math.Max(0, ResidentBytes - GcCommittedBytes);

    /// <summary>The collector's counters and the resident set at the start of play, to measure play alone.</summary>
    public static (int Gen0, int Gen1, int Gen2, TimeSpan Pause, long Resident) Start()
    {
        using var process = Process.GetCurrentProcess();
        return (GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalPauseDuration(), process.WorkingSet64);
    }

    /// <summary>Measures now, against <paramref name="start"/>. The heap figure is the live heap after a full collection.</summary>
    public static MemoryReport Measure((int Gen0, int Gen1, int Gen2, TimeSpan Pause, long Resident) start, long liveRecords)
    {
        var gen0 = GC.CollectionCount(0) - start.Gen0;
        var gen1 = GC.CollectionCount(1) - start.Gen1;
        var gen2 = GC.CollectionCount(2) - start.Gen2;
        var pause = GC.GetTotalPauseDuration() - start.Pause;
        var heap = GC.GetTotalMemory(forceFullCollection: true);
        var committed = GC.GetGCMemoryInfo(GCKind.Any).TotalCommittedBytes;
        using var process = Process.GetCurrentProcess();
        return new MemoryReport(process.WorkingSet64, heap, liveRecords, gen0, gen1, gen2, pause)
        {
            ResidentAtStartBytes = start.Resident,
            GcCommittedBytes = committed,
        };
    }

    /// <summary>Managed bytes per live record (the whole process's heap: the server, the bots and the state).</summary>
    public double HeapBytesPerRecord => LiveRecords == 0 ? 0 : ManagedHeapBytes / (double)LiveRecords;
}
