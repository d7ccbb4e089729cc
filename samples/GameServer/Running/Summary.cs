using Stellar.Store.Samples.GameServer.Server;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>The closing summary of a bot run.</summary>
internal static class Summary
{
    /// <summary>What the slowest 1% of ticks were made of: the tick's own work, GC pauses, or waiting for a core.</summary>
    public static string SlowestTicks(TickSample slow) => ThreadCpuClock.IsAvailable
        ? $"the slowest 1% took {slow.Wall:N2} ms on average: {slow.OnCpu:N2} ms on a core, {slow.GcPause:N2} ms in GC pauses, at least {slow.WaitingForCore:N2} ms waiting for a core"
        : $"the slowest 1% took {slow.Wall:N2} ms on average, {slow.GcPause:N2} ms of it in GC pauses (this OS does not give the thread's CPU time)";

    private static string IdleGc(RunOptions options) => options.IdleCollectBytes > 0
        ? $"--idle-gc-bytes {options.IdleCollectBytes:N0}"
        : "--idle-gc-bytes 0: off";

    public static void Print(TextWriter output, RunOptions options, string state, RunResult result, WriteStats writes, long sizeOnDisk, int files)
    {
        var seconds = result.Played.TotalSeconds;
        var bots = result.Bots;
        var ticks = result.Ticks;
        output.WriteLine();
        output.WriteLine("== summary ==");
        output.WriteLine($"state          {state}");
        output.WriteLine($"bots           {options.Bots} for {seconds:N1} s: {bots.LoggedIn} logged in (storm at start), {bots.LoggedOut} logged out (wave at end), {bots.LostConnections} lost connections");
        output.WriteLine($"requests       {bots.Requests:N0} ({bots.Requests / seconds:N0}/s), {bots.Refused:N0} refused by game rules");
        output.WriteLine($"ticks          {ticks.Ticks:N0} at 20 Hz: work p50 {ticks.P50:N2} ms, p99 {ticks.P99:N2} ms, max {ticks.Max:N2} ms; over the {TcpGameServer.TickPeriod.TotalMilliseconds:N0} ms budget: {ticks.OverBudget}");
        output.WriteLine($"slowest ticks  {SlowestTicks(ticks.Slowest)}");
        var kinds = string.Join(", ", Enum.GetValues<WriteKind>().Select(k => $"{k.ToString().ToLowerInvariant()} {writes.Of(k) / seconds:N1}"));
        output.WriteLine($"writes/s       {writes.Total / seconds:N0} acknowledged: {kinds}");
        output.WriteLine($"leaderboard    {writes.LeaderboardQueries:N0} top-{TcpGameServer.LeaderboardSize} queries on snapshots while writes went on");
        output.WriteLine($"trades         {bots.AcknowledgedTrades.Count:N0} acknowledged to bots (each after its atomic write completed)");
        var renewal = World.SessionRenewalTicks(options.SessionLease) * TcpGameServer.TickPeriod;
        output.WriteLine($"sessions       {writes.Of(WriteKind.Session):N0} written or renewed: a lease of {options.SessionLease.TotalSeconds:N0} s, renewed every {renewal.TotalSeconds:N1} s while online, deleted at logout");
        var memory = result.Memory;
        output.WriteLine($"memory         resident {Format.Bytes(memory.ResidentAtStartBytes)} at the start of play, {Format.Bytes(memory.ResidentBytes)} at the end: managed heap {Format.Bytes(memory.ManagedHeapBytes)} live " +
            $"(after a full collection) for {memory.LiveRecords:N0} live records ({memory.HeapBytesPerRecord:N0} B of heap per record, server and bots included), " +
            $"{Format.Bytes(memory.GcHeadroomBytes)} more committed by the GC (headroom, fragmentation), {Format.Bytes(memory.OtherResidentBytes)} other (runtime, code, stacks, native buffers)");
        output.WriteLine($"gc             during play: {memory.Gen0:N0} gen0, {memory.Gen1:N0} gen1, {memory.Gen2:N0} gen2 collections, {memory.GcPause.TotalMilliseconds:N0} ms paused in all; {ticks.IdleCollections:N0} gen0 collections run between ticks ({IdleGc(options)})");
        if (options.NoPersistence)
        {
            output.WriteLine("durability     none (--no-persistence)");
        }
        else
        {
            output.WriteLine($"durability     {options.Durability}: {DurabilityPromise(options.Durability)}");
            output.WriteLine($"store on disk  {Format.Bytes(sizeOnDisk)} in {files} files (LZ4 blocks)");
        }

        if (result.StoreFault is { } fault)
        {
            output.WriteLine($"STORE FAULT    {fault.GetType().Name}: {fault.Message}");
        }

        PrintVerification(output, result);
    }

    private static void PrintVerification(TextWriter output, RunResult result)
    {
        if (result.Reopened is { } r)
        {
            Print(output, "in the open store, through one store snapshot", result.Live);
            Print(output, $"after reopening the store ({r.OpenTime.TotalMilliseconds:N0} ms to open; {r.Positions:N0} positions, {r.Scores:N0} scores, {r.Chunks:N0} chunks)", result.Verification);
        }
        else
        {
            Print(output, "in memory (nothing was stored)", result.Verification);
        }
    }

    private static void Print(TextWriter output, string where, VerificationResult v)
    {
        output.WriteLine($"verification   {where}: {(v.Ok ? "OK" : "FAILED")}");
        output.WriteLine($"               {v.Accounts:N0} accounts each with its character; gold {v.TotalGold:N0} = ledger sum {v.LedgerSum:N0} over {v.LedgerEntries:N0} entries, {v.Characters:N0} characters; " +
            $"{v.Items:N0} items each in exactly one inventory; {v.Trades:N0} trades each with both ledger legs; {v.Sessions:N0} live sessions, none of this run (every player logged out)");
        foreach (var failure in v.Failures)
        {
            output.WriteLine($"  FAILED: {failure}");
        }

        if (v.FailureCount > v.Failures.Count)
        {
            output.WriteLine($"  ... and {v.FailureCount - v.Failures.Count} more");
        }
    }

    private static string DurabilityPromise(Durability durability) => durability switch
    {
        Durability.Buffered => "acknowledged writes are durable only after a flush (the store flushed at shutdown)",
        Durability.WriteThrough => "an acknowledged write survives a crash of the process",
        _ => "an acknowledged write survives a crash of the machine (group commit, one fsync per group)",
    };
}
