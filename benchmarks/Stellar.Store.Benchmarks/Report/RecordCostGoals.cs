using System.Globalization;
using Stellar.Store.Benchmarks.Game;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// The goals for what Stellar.Store pays per record, each against a floor measured in the same run: the write
/// syscall, a <c>ConcurrentDictionary</c> lookup and scan, deserializing from one byte array, the plain encode path,
/// SQLite's one-transaction import, and the game mix's schedule.
/// </summary>
internal sealed class RecordCostGoals(Goals goals, IReadOnlyList<GameRow>? game, IReadOnlyList<MemoryRow>? memory, IReadOnlyList<TickRow>? ticks)
{
    public IEnumerable<GoalRow> Evaluate()
    {
        string PerRecord(string workload, string method, params (string, object)[] parameters) =>
            goals.Find(workload, method, parameters)?.DiskBytesPerRecord is { } b ? $"{b:N1} B" : "n/a";
        var single = goals.Find("SingleInsert", "Stellar_WriteThrough");
        yield return Bytes("bytes on disk per small record, one awaited insert at a time", single, 64,
            $"ours {PerRecord("SingleInsert", "Stellar_WriteThrough")}; SQLite NORMAL {PerRecord("SingleInsert", "Sqlite_Normal")}, ZoneTree {PerRecord("SingleInsert", "ZoneTree_WalSync")}, LiteDB {PerRecord("SingleInsert", "LiteDb_Fsync")}; the records alone through a FileStream {PerRecord("SingleInsert", "FileStream_Write")}");
        var largest = goals.Values("BulkImport", "Records").OrderBy(s => double.TryParse(s, CultureInfo.InvariantCulture, out var n) ? n : 0).LastOrDefault() ?? "";
        var imported = goals.Find("BulkImport", "Stellar_BulkImport_WriteThroughStore", ("Records", largest));
        yield return Bytes($"bytes on disk per small record after a bulk import of {largest}", imported, 36,
            $"ours {PerRecord("BulkImport", "Stellar_BulkImport_WriteThroughStore", ("Records", largest))}; SQLite {PerRecord("BulkImport", "Sqlite_Normal_Transaction", ("Records", largest))}, ZoneTree {PerRecord("BulkImport", "ZoneTree_NoWal_Evict", ("Records", largest))}, LiteDB {PerRecord("BulkImport", "LiteDb_Fsync_InsertBulk", ("Records", largest))}; the records alone {PerRecord("BulkImport", "FileStream_Ceiling", ("Records", largest))}");

        var insert = goals.Find("SingleInsert", "Stellar_WriteThrough");
        var write = goals.Find("SingleInsert", "FileStream_Write");
        var zone = goals.Find("SingleInsert", "ZoneTree_WalSync");
        yield return Goals.AtMost("awaited single insert (WriteThrough, one caller) ≤ 3× one FileStream write", insert, write, 3,
            $"Stellar WriteThrough {Goals.Time(insert)} / FileStream_Write {Goals.Time(write)} per record");
        yield return Goals.AtLeast("awaited single insert (WriteThrough, one caller) faster than ZoneTree's WAL-sync insert", zone, insert, 1,
            $"ZoneTree WalSync {Goals.Time(zone)} / Stellar WriteThrough {Goals.Time(insert)}");

        var get = goals.Find("PointRead", "Stellar_Get");
        var lookup = goals.Find("PointRead", "ConcurrentDictionary_TryGetValue");
        yield return Goals.AtMost("point read `Get` ≤ 1.2× ConcurrentDictionary.TryGetValue", get, lookup, 1.2,
            $"Stellar Get {Goals.Time(get)} / ConcurrentDictionary {Goals.Time(lookup)}");

        var scan = goals.Find("ScanQuery", "Stellar_Query");
        var values = goals.Find("ScanQuery", "ConcurrentDictionary_Values");
        yield return Goals.AtMost("scan `Query(predicate)` ≤ 1.2× a scan of ConcurrentDictionary.Values", scan, values, 1.2,
            $"Stellar Query {Goals.Time(scan)} / ConcurrentDictionary.Values {Goals.Time(values)}");

        var open = goals.Find("Open", "Stellar_Plain");
        var floor = goals.Find("Open", "Floor_DeserializeOneCore");
        yield return Goals.AtMost("open of 1,000,000 small records ≤ 1.5× deserializing them from one byte array on one core", open, floor, 1.5,
            $"Stellar open {Goals.Time(open)} / one-core deserialize {Goals.Time(floor)} (allocated per open: {Allocated(open)})");

        // The plain encode path on bulk import's own records, on every core the run had.
        var cores = goals.Values("SmallRecordEncode", "Cores").Select(c => int.TryParse(c, CultureInfo.InvariantCulture, out var n) ? n : 0).DefaultIfEmpty(0).Max();
        var encode = goals.Rows("SmallRecordEncode", "Plain").FirstOrDefault(r => r.Has(("Cores", cores)));
        foreach (var records in goals.Values("BulkImport", "Records"))
        {
            var bulk = goals.Find("BulkImport", "Stellar_BulkImport_WriteThroughStore", ("Records", records));
            yield return RateAtLeast($"bulk import of {records} ≥ 80% of the plain encode path's all-core ({cores}) record rate", bulk, encode, 0.8,
                $"bulk {Goals.Rate(bulk)}/s / plain encode of the same records on {cores} cores {Goals.Rate(encode)}/s");
            // Both of our bulk rows fsync once at the end, whatever the store's mode: SQLite FULL is the row that
            // promises the same; SQLite NORMAL (no fsync) is shown beside it.
            var mine = goals.Rows("BulkImport", "Stellar_BulkImport_WriteThroughStore").Concat(goals.Rows("BulkImport", "Stellar_BulkImport_FsyncStore"))
                .Where(r => r.Has(("Records", records)) && r.MedianNs is not null).MinBy(r => r.MedianNs);
            var full = goals.Find("BulkImport", "Sqlite_Full_Transaction", ("Records", records));
            var normal = goals.Find("BulkImport", "Sqlite_Normal_Transaction", ("Records", records));
            yield return RateAtLeast($"bulk import of {records} ≥ 1.5× SQLite's one-transaction import that also fsyncs (FULL)", mine, full, 1.5,
                $"{mine?.Method} {Goals.Rate(mine)}/s / Sqlite_Full_Transaction {Goals.Rate(full)}/s (SQLite NORMAL, no fsync: {Goals.Rate(normal)}/s)");
        }

        yield return GameMixGoal();
        yield return MemoryGoal();
        foreach (var goal in TickGoals())
        {
            yield return goal;
        }
    }

    /// <summary>The sample game server's tick: the p99 ratio with and without the store, and the longest tick of a long game.</summary>
    private IEnumerable<GoalRow> TickGoals()
    {
        var ratio = ticks?.FirstOrDefault(t => t.Figure == "p99-ratio");
        const string ratioGoal = "game tick p99 with the store / without (sample game server, same seeded game) ≤ 1.2×";
        if (ratio is null)
        {
            yield return new GoalRow(ratioGoal, "no game-tick results (`results/game-tick.csv`)", null, null, null, "≤ 1.2×", "game tick not run");
        }
        else
        {
            var status = ratio.Low is not { } low || ratio.High is not { } high ? "inconclusive (no interval)"
                : high <= 1.2 ? "met"
                : low > 1.2 ? "**MISSED**"
                : "inconclusive (the interval spans the target)";
            yield return new GoalRow(ratioGoal, $"median of 6 pairs of runs: `{ratio.Command}`", ratio.Value, ratio.Low, ratio.High, "≤ 1.2×", status);
        }

        var longest = ticks?.FirstOrDefault(t => t.Figure == "max-tick-ms");
        const string longGoal = "no tick over the 50 ms budget in a 5-minute, 200-bot game";
        yield return longest is null
            ? new GoalRow(longGoal, "no game-tick results (`results/game-tick.csv`)", null, null, null, "≤ 50 ms", "game tick not run")
            : new GoalRow(longGoal, $"longest tick {longest.Value:N1} ms (one game): `{longest.Command}`", longest.Value / 50, null, null, "≤ 1× (50 ms)",
                longest.Value <= 50 ? "met" : "**MISSED**");
    }

    /// <summary>Retained managed bytes per record of an opened store against a <c>Dictionary</c> of the same records (the <c>memory</c> verb).</summary>
    private GoalRow MemoryGoal()
    {
        const string goal = "retained managed bytes per small record after opening 1,000,000 ≤ 1.3× a Dictionary of the same objects";
        var dictionary = memory?.FirstOrDefault(m => m.Kind == "dictionary");
        var store = memory?.FirstOrDefault(m => m.Kind == "store");
        if (dictionary is null || store is null || dictionary.BytesPerRecord <= 0)
        {
            return new GoalRow(goal, "no memory results in this run (`memory` verb)", null, null, null, "≤ 1.3×", "memory verb not run");
        }

        var ratio = store.BytesPerRecord / dictionary.BytesPerRecord;
        return new GoalRow(goal,
            $"{store.Records:N0} records, each kind in a fresh process: store {store.BytesPerRecord:N1} B, Dictionary {dictionary.BytesPerRecord:N1} B per record; resident {store.ResidentBytes / 1048576.0:N0} MiB against {dictionary.ResidentBytes / 1048576.0:N0} MiB (one measurement each: no interval)",
            ratio, null, null, "≤ 1.3×", ratio <= 1.3 ? "met" : "**MISSED**");
    }

    /// <summary>
    /// The game mix in WriteThrough: the whole 200,000 updates/s at 20 Hz with a write p99 of at most 5 ms, judged on
    /// the medians over the runs and met only when the p99's whole interval is under the target.
    /// </summary>
    private GoalRow GameMixGoal()
    {
        const string goal = "game mix (WriteThrough): 200,000 updates/s at 20 Hz with write p99 ≤ 5 ms";
        var ours = game is null ? null : GameSummary.Of(game).FirstOrDefault(s => s.Store == "Stellar_WriteThrough");
        if (ours is null)
        {
            return new GoalRow(goal, "no game-mix results in this run (`game` verb)", null, null, null, "≤ 5 ms", "game mix not run");
        }

        var p99 = ours.WriteP99;
        var full = ours.UpdatesPerSecond.Low >= ours.Target * 0.99 && ours.MissedUpdates == 0;
        var status = ours.Runs < 2 ? "inconclusive (one run, no interval)"
            : !full || p99.Low > 5_000 ? "**MISSED**"
            : p99.High <= 5_000 ? "met"
            : "inconclusive (the interval spans the target)";
        return new GoalRow(goal, $"{ours.UpdatesPerSecond} updates/s of {ours.Target:N0}, write p99 {p99} µs, {ours.MissedUpdates:N0} missed, {ours.Runs} runs",
            p99.Median / 5_000, p99.Low / 5_000, p99.High / 5_000, "≤ 1× (p99 / 5 ms)", status);
    }

    /// <summary>A size goal: bytes on disk per record at most <paramref name="target"/>. Sizes do not vary between runs, so there is no interval.</summary>
    private static GoalRow Bytes(string goal, ResultRow? ours, double target, string measured)
    {
        var limit = target.ToString(CultureInfo.InvariantCulture);
        if (ours?.DiskBytesPerRecord is not { } bytes)
        {
            return new GoalRow($"{goal} ≤ {limit} B", measured, null, null, null, $"≤ {limit} B", "not measured");
        }

        return new GoalRow($"{goal} ≤ {limit} B", measured, bytes / target, null, null, $"≤ 1× ({limit} B)", bytes <= target ? "met" : "**MISSED**");
    }

    /// <summary>A goal "<paramref name="ours"/>'s record rate is at least <paramref name="target"/>× <paramref name="reference"/>'s".</summary>
    private static GoalRow RateAtLeast(string goal, ResultRow? ours, ResultRow? reference, double target, string measured)
    {
        // Rates come from the rows' Ops/s (records per second); each end of a rate's interval scales with its time's.
        static (double Rate, double Low, double High)? Of(ResultRow? row) => row is { OpsPerSecond: { } ops, MedianNs: { } median }
            ? (ops, ops * median / (row.HighNs ?? median), ops * median / (row.LowNs ?? median))
            : null;
        if (Of(ours) is not { } o || Of(reference) is not { } r)
        {
            return new GoalRow(goal, measured, null, null, null, $"≥ {target.ToString(CultureInfo.InvariantCulture)}×", "not measured");
        }

        var (ratio, low, high) = (o.Rate / r.Rate, o.Low / r.High, o.High / r.Low);
        var status = ours!.Samples < 2 || reference!.Samples < 2 ? "inconclusive (one sample, no interval)"
            : low >= target ? "met"
            : high < target ? "**MISSED**"
            : "inconclusive (the interval spans the target)";
        return new GoalRow(goal, measured, ratio, low, high, $"≥ {target.ToString(CultureInfo.InvariantCulture)}×", status);
    }

    private static string Allocated(ResultRow? row) => row?.AllocatedBytes is { } bytes ? $"{bytes / 1024 / 1024:N0} MiB" : "n/a";

}
