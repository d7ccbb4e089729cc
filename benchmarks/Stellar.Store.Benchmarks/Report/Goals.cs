using System.Globalization;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Units;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// Evaluates every goal against the rows, each named by what it measures. A ratio goal compares medians; its
/// interval is the widest the two rows' 95% intervals allow (the slower row's low end over the faster row's high end,
/// and the reverse), so a goal is "met" or "missed" only when that whole interval is on one side of the target, and
/// "inconclusive" otherwise. A goal against a peer the registry does not serve says so and shows every peer instead.
/// </summary>
internal sealed class Goals(IReadOnlyList<ResultRow> rows, IReadOnlyList<GameRow>? game = null, IReadOnlyList<MemoryRow>? memory = null, IReadOnlyList<TickRow>? ticks = null,
    IReadOnlyList<UnitRow>? units = null, IReadOnlyList<Indexes.UpkeepRow>? upkeep = null,
    IReadOnlyList<Open.OpenPairRow>? opens = null, IReadOnlyList<Open.OpenPairRow>? freshOpens = null)
{
    private const string NotServed = "not served: Stellar.FastDB is not in the package registry";

    public List<GoalRow> Evaluate()
    {
        var goals = new List<GoalRow>();
        var get = Find("PointRead", "Stellar_Get");
        var copy = Find("PointRead", "Stellar_Get_CopyOnRead");
        var pointPeers = $"LiteDB {Time(Find("PointRead", "LiteDb_FindById"))}; SQLite {Time(Find("PointRead", "Sqlite_Select"))}; ZoneTree {Time(Find("PointRead", "ZoneTree_TryGet"))}";
        goals.Add(NotMeasurable("point read ≤ 1.2× FastDB's time", $"ours {Time(get)} (copy on read {Time(copy)}); {pointPeers}"));
        goals.Add(AtLeast("point read, a fresh object per read like the peers, ≥ 20× faster than LiteDB", Find("PointRead", "LiteDb_FindById"), copy, 20,
            $"LiteDB FindById / Stellar Get with CopyOnRead (shared-object Get: {Time(get)})"));
        goals.Add(AtLeast("point read, a fresh object per read like the peers, ≥ 20× faster than SQLite", Find("PointRead", "Sqlite_Select"), copy, 20,
            $"SQLite SELECT / Stellar Get with CopyOnRead (shared-object Get: {Time(get)})"));

        goals.Add(NotMeasurable("single-caller inserts ≥ FastDB's rate",
            $"OS: ours WriteThrough {Rate(Find("SingleInsert", "Stellar_WriteThrough"))}/s, SQLite NORMAL {Rate(Find("SingleInsert", "Sqlite_Normal"))}/s, ZoneTree {Rate(Find("SingleInsert", "ZoneTree_WalSync"))}/s; " +
            $"fsync: ours {Rate(Find("SingleInsert", "Stellar_Fsync"))}/s, SQLite FULL {Rate(Find("SingleInsert", "Sqlite_Full"))}/s, LiteDB {Rate(Find("SingleInsert", "LiteDb_Fsync"))}/s"));
        (string Name, object Value)[] insert64 = [("Callers", 64), ("Op", "Insert")];
        goals.Add(NotMeasurable("64 callers ≥ 3× FastDB's rate",
            $"OS: ours WriteThrough {Rate(Find("ConcurrentWrite", "Stellar_WriteThrough", insert64))}/s, SQLite NORMAL {Rate(Find("ConcurrentWrite", "Sqlite_Normal", insert64))}/s (group commit {Rate(Find("ConcurrentWrite", "Sqlite_Normal_GroupCommit", insert64))}/s), ZoneTree {Rate(Find("ConcurrentWrite", "ZoneTree_WalSync", insert64))}/s; " +
            $"fsync: ours {Rate(Find("ConcurrentWrite", "Stellar_Fsync", insert64))}/s, LiteDB {Rate(Find("ConcurrentWrite", "LiteDb_Fsync", insert64))}/s (group commit {Rate(Find("ConcurrentWrite", "LiteDb_Fsync_GroupCommit", insert64))}/s)"));
        foreach (var op in new[] { "Insert", "Upsert" })
        {
            var ours = Find("ConcurrentWrite", "Stellar_Fsync", ("Callers", 64), ("Op", op));
            var lite = Find("ConcurrentWrite", "LiteDb_Fsync_GroupCommit", ("Callers", 64), ("Op", op));
            goals.Add(AtLeast($"Fsync, 64 callers ≥ 20× SQLite FULL with one commit per row ({op.ToLowerInvariant()}s)",
                Find("ConcurrentWrite", "Sqlite_Full", ("Callers", 64), ("Op", op)), ours, 20, "SQLite FULL time / Stellar Fsync time"));
            goals.Add(AtLeast($"Fsync, 64 callers ≥ 20× SQLite FULL with a group commit ({op.ToLowerInvariant()}s)",
                Find("ConcurrentWrite", "Sqlite_Full_GroupCommit", ("Callers", 64), ("Op", op)), ours, 20,
                $"SQLite FULL group commit time / Stellar Fsync time (LiteDB group commit / ours: {RatioText(lite, ours)})"));
        }

        foreach (var records in Values("BulkImport", "Records"))
        {
            var ours = Best(r => r.Workload == "BulkImport" && r.IsStellar && r.Has(("Records", records)));
            var best = Best(r => r.Workload == "BulkImport" && !r.IsStellar && !IsCeiling(r) && r.Pairing == ours?.Pairing && r.Has(("Records", records)));
            var others = string.Join("; ", rows.Where(r => r.Workload == "BulkImport" && !IsCeiling(r) && r.Has(("Records", records)))
                .Select(r => $"{r.Method} [{r.Pairing}] {Rate(r)}/s"));
            goals.Add(AtLeast($"bulk import of {records} ≥ 2× the best peer that promises the same ({ours?.Pairing})", best, ours, 2,
                $"{best?.Method} time / {ours?.Method} time; all rows: {others}"));
            goals.Add(AtLeast($"bulk import of {records} ≥ 50% of the FileStream ceiling", Find("BulkImport", "FileStream_Ceiling", ("Records", records)), ours, 0.5,
                $"ceiling time / {ours?.Method} time"));
        }

        var plain = Find("LargeRecord", "Stellar_Plain");
        var both = Find("LargeRecord", "Stellar_Lz4_AesGcm");
        goals.Add(AtLeast("large records, LZ4 + AES-GCM ≥ 0.8× our plain rate", plain, both, 0.8, "plain time / LZ4+AES time (= LZ4+AES rate / plain rate)"));
        goals.Add(NotMeasurable("large-record files no larger than FastDB's compressed ones",
            $"ours LZ4+AES {Kib(both)} KiB vs plain {Kib(plain)} KiB; LiteDB {Kib(Find("LargeRecord", "LiteDb_Plain_Fsync"))} KiB (password {Kib(Find("LargeRecord", "LiteDb_Aes_OsWrite"))} KiB); SQLite {Kib(Find("LargeRecord", "Sqlite_Normal"))} KiB"));
        var largest = Values("BulkImport", "Records").OrderBy(s => double.TryParse(s, CultureInfo.InvariantCulture, out var n) ? n : 0).LastOrDefault() ?? "";
        goals.Add(NotMeasurable("file size for small records ≤ FastDB's",
            $"{largest} records: ours {Kib(Find("BulkImport", "Stellar_BulkImport_WriteThroughStore", ("Records", largest)))} KiB; LiteDB {Kib(Find("BulkImport", "LiteDb_Fsync_InsertBulk", ("Records", largest)))} KiB; SQLite {Kib(Find("BulkImport", "Sqlite_Normal_Transaction", ("Records", largest)))} KiB; ZoneTree {Kib(Find("BulkImport", "ZoneTree_NoWal_Evict", ("Records", largest)))} KiB; plain file {Kib(Find("BulkImport", "FileStream_Ceiling", ("Records", largest)))} KiB"));
        goals.Add(NotMeasurable("scan query ≤ 1.2× FastDB's time",
            $"ours {Time(Find("ScanQuery", "Stellar_Query"))}; LiteDB {Time(Find("ScanQuery", "LiteDb_Find"))}; SQLite {Time(Find("ScanQuery", "Sqlite_Where"))}; ZoneTree {Time(Find("ScanQuery", "ZoneTree_Iterate"))}"));
        goals.Add(NotMeasurable("open time ≤ 0.5× FastDB's",
            $"fresh: ours {Time(Find("Open", "Stellar_Plain"))} (LZ4+AES {Time(Find("Open", "Stellar_Lz4_AesGcm"))}), LiteDB {Time(Find("Open", "LiteDb"))}, SQLite {Time(Find("Open", "Sqlite_Normal"))}, ZoneTree {Time(Find("Open", "ZoneTree_WalSync"))}; " +
            $"after churn: ours {Time(Find("Open", "Stellar_Plain_AfterChurn"))}, LiteDB {Time(Find("Open", "LiteDb_AfterChurn"))}, SQLite {Time(Find("Open", "Sqlite_Normal_AfterChurn"))}, ZoneTree {Time(Find("Open", "ZoneTree_WalSync_AfterChurn"))}"));

        var cores = Values("Encode", "Cores").Select(c => int.TryParse(c, CultureInfo.InvariantCulture, out var n) ? n : 0).DefaultIfEmpty(0).Max();
        goals.Add(AtLeast($"encode, 2 KB records, all ({cores}) cores: LZ4 + AES-GCM ≥ 0.8× plain",
            Find("Encode", "Plain", ("RecordBytes", 2048), ("Cores", cores)),
            Find("Encode", "Lz4_AesGcm", ("RecordBytes", 2048), ("Cores", cores)), 0.8, "plain time / LZ4+AES time (= LZ4+AES rate / plain rate)"));
        goals.AddRange(new RecordCostGoals(this, game, memory, ticks).Evaluate());
        goals.AddRange(UnitGoals.Evaluate(units));
        goals.AddRange(new IndexGoals(this, upkeep, opens, freshOpens).Evaluate());
        return goals;
    }

    /// <summary>Every row of <paramref name="method"/> in <paramref name="workload"/>, whatever its parameters.</summary>
    public IEnumerable<ResultRow> Rows(string workload, string method) => rows.Where(r => r.Workload == workload && r.Method == method);

    public ResultRow? Find(string workload, string method, params (string Name, object Value)[] parameters) =>
        rows.FirstOrDefault(r => r.Workload == workload && r.Method == method && r.Has(parameters));

    public static string Time(ResultRow? row) => row?.MedianNs is not { } ns ? "n/a" : Nanoseconds(ns);

    public static string Nanoseconds(double ns) =>
        ns >= 1e9 ? $"{ns / 1e9:N2} s"
        : ns >= 1e6 ? $"{ns / 1e6:N1} ms"
        : ns >= 1e3 ? $"{ns / 1e3:N1} µs"
        : $"{ns:N0} ns";

    public static string Rate(ResultRow? row) => row?.OpsPerSecond is { } ops
        ? ops.ToString(ops < 10 ? "N2" : "N0", CultureInfo.InvariantCulture)
        : "n/a";

    public static string Kib(ResultRow? row) => row?.DiskKiB is { } kib ? kib.ToString("N0", CultureInfo.InvariantCulture) : "n/a";

    private static bool IsCeiling(ResultRow row) => row.Method.StartsWith("FileStream", StringComparison.Ordinal);

    internal IEnumerable<string> Values(string workload, string parameter) =>
        rows.Where(r => r.Workload == workload).Select(r => r.Parameters.GetValueOrDefault(parameter, "")).Distinct();

    private ResultRow? Best(Func<ResultRow, bool> where) => rows.Where(where).Where(r => r.MedianNs is not null).MinBy(r => r.MedianNs);

    internal static double? Ratio(ResultRow? numerator, ResultRow? denominator) =>
        numerator?.MedianNs is { } n && denominator?.MedianNs is { } d && d > 0 ? n / d : null;

    private static string RatioText(ResultRow? slower, ResultRow? faster) => Ratio(slower, faster) is { } r
        ? $"{r.ToString("N2", CultureInfo.InvariantCulture)}× [{(slower!.LowNs / faster!.HighNs)?.ToString("N2", CultureInfo.InvariantCulture)}–{(slower.HighNs / faster.LowNs)?.ToString("N2", CultureInfo.InvariantCulture)}]"
        : "n/a";

    /// <summary>A goal "<paramref name="faster"/> is at least <paramref name="target"/>× as fast": its time divides the other's.</summary>
    internal static GoalRow AtLeast(string goal, ResultRow? slower, ResultRow? faster, double target, string measured)
    {
        var ratio = Ratio(slower, faster);
        var low = slower?.LowNs is { } sl && faster?.HighNs is { } fh && fh > 0 ? sl / fh : (double?)null;
        var high = slower?.HighNs is { } sh && faster?.LowNs is { } fl && fl > 0 ? sh / fl : (double?)null;
        var status = ratio is null || low is null || high is null ? "not measured"
            : slower!.Samples < 2 || faster!.Samples < 2 ? "inconclusive (one sample, no interval)"
            : low >= target ? "met"
            : high < target ? "**MISSED**"
            : "inconclusive (the interval spans the target)";
        return new GoalRow(goal, measured, ratio, low, high, $"≥ {target.ToString(CultureInfo.InvariantCulture)}×", status);
    }

    /// <summary>A goal "<paramref name="ours"/> takes at most <paramref name="target"/>× the time of <paramref name="floor"/>".</summary>
    internal static GoalRow AtMost(string goal, ResultRow? ours, ResultRow? floor, double target, string measured)
    {
        var ratio = Ratio(ours, floor);
        var low = ours?.LowNs is { } ol && floor?.HighNs is { } fh && fh > 0 ? ol / fh : (double?)null;
        var high = ours?.HighNs is { } oh && floor?.LowNs is { } fl && fl > 0 ? oh / fl : (double?)null;
        var status = ratio is null || low is null || high is null ? "not measured"
            : ours!.Samples < 2 || floor!.Samples < 2 ? "inconclusive (one sample, no interval)"
            : high <= target ? "met"
            : low > target ? "**MISSED**"
            : "inconclusive (the interval spans the target)";
        return new GoalRow(goal, measured, ratio, low, high, $"≤ {target.ToString(CultureInfo.InvariantCulture)}×", status);
    }

    internal static GoalRow Info(string goal, double? ratio, string measured) =>
        new(goal, measured, ratio, null, null, "(no number set)", ratio is null ? "not measured" : "info");

    private static GoalRow NotMeasurable(string goal, string measured) =>
        new(goal, measured, null, null, null, "vs FastDB", NotServed);
}
