using System.Globalization;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>One goal of issues 3, 4 and 7, and where the measured rows put us.</summary>
internal sealed record GoalRow(string Issue, string Goal, string Measured, double? Ratio, string Target, string Status);

/// <summary>Evaluates every goal against the rows. A goal against a peer the registry does not serve says so.</summary>
internal sealed class Goals(IReadOnlyList<ResultRow> rows)
{
    private const string NotServed = "not served: Stellar.FastDB is not in the package registry";

    public List<GoalRow> Evaluate()
    {
        var goals = new List<GoalRow>();
        var get = Find("PointRead", "Stellar_Get");
        goals.Add(NotMeasurable("7", "point read ≤ 1.2× FastDB's time", $"Stellar_Get {Time(get)}"));
        goals.Add(AtLeast("7", "point read ≥ 20× faster than LiteDB", Find("PointRead", "LiteDb_FindById"), get, 20, "LiteDB FindById / Stellar Get"));
        goals.Add(AtLeast("7", "point read ≥ 20× faster than SQLite", Find("PointRead", "Sqlite_Select"), get, 20, "SQLite SELECT / Stellar Get"));
        var dictionary = Find("PointRead", "ConcurrentDictionary_TryGetValue");
        goals.Add(Info("3", "point read close to a ConcurrentDictionary lookup", Ratio(get, dictionary), "Stellar Get / ConcurrentDictionary (×, lower is better)"));

        var single = Find("SingleInsert", "Stellar_WriteThrough");
        goals.Add(NotMeasurable("7", "single-caller inserts ≥ FastDB's rate", $"Stellar WriteThrough {Rate(single)}/s; LiteDB {Rate(Find("SingleInsert", "LiteDb"))}/s; SQLite NORMAL {Rate(Find("SingleInsert", "Sqlite_Normal"))}/s"));
        var concurrent64 = Find("ConcurrentWrite", "Stellar_WriteThrough", ("Callers", 64), ("Op", "Insert"));
        goals.Add(NotMeasurable("7", "64 callers ≥ 3× FastDB's rate", $"Stellar WriteThrough {Rate(concurrent64)}/s; LiteDB {Rate(Find("ConcurrentWrite", "LiteDb", ("Callers", 64), ("Op", "Insert")))}/s"));
        foreach (var op in new[] { "Insert", "Upsert" })
        {
            goals.Add(AtLeast("7", $"Fsync, 64 callers ≥ 20× SQLite FULL, 64 callers ({op.ToLowerInvariant()}s)",
                Find("ConcurrentWrite", "Sqlite_Full", ("Callers", 64), ("Op", op)),
                Find("ConcurrentWrite", "Stellar_Fsync", ("Callers", 64), ("Op", op)), 20, "SQLite FULL time / Stellar Fsync time"));
        }

        foreach (var records in rows.Where(r => r.Workload == "BulkImport").Select(r => r.Parameters.GetValueOrDefault("Records", "")).Distinct())
        {
            var ours = Find("BulkImport", "Stellar_WriteThrough_BulkImport", ("Records", records));
            var best = rows.Where(r => r.Workload == "BulkImport" && !r.IsStellar && !r.Method.StartsWith("FileStream", StringComparison.Ordinal) && r.Has(("Records", records)))
                .Where(r => r.MeanNs is not null).MinBy(r => r.MeanNs);
            goals.Add(AtLeast("7", $"bulk import of {records} ≥ 2× the best peer", best, ours, 2, $"{best?.Method} time / Stellar time"));
            goals.Add(AtLeast("7", $"bulk import of {records} ≥ 50% of the FileStream ceiling", Find("BulkImport", "FileStream_Ceiling", ("Records", records)), ours, 0.5, "ceiling time / Stellar time"));
        }

        var plain = Find("LargeRecord", "Stellar_Plain");
        var both = Find("LargeRecord", "Stellar_Lz4_AesGcm");
        goals.Add(AtLeast("7", "large records, LZ4 + AES-GCM ≥ 0.8× our plain rate", plain, both, 0.8, "plain time / LZ4+AES time (= LZ4+AES rate / plain rate)"));
        goals.Add(NotMeasurable("7", "large-record files no larger than FastDB's compressed ones",
            $"ours LZ4+AES {Kib(both)} KiB vs plain {Kib(plain)} KiB; LiteDB {Kib(Find("LargeRecord", "LiteDb_Plain"))} KiB; SQLite {Kib(Find("LargeRecord", "Sqlite_Normal"))} KiB"));
        var bulkSizes = rows.Where(r => r.Workload == "BulkImport").Select(r => r.Parameters.GetValueOrDefault("Records", "")).Distinct().ToList();
        var largest = bulkSizes.OrderBy(s => double.TryParse(s, CultureInfo.InvariantCulture, out var n) ? n : 0).LastOrDefault() ?? "";
        goals.Add(NotMeasurable("7", "file size for small records ≤ FastDB's",
            $"{largest} records: ours {Kib(Find("BulkImport", "Stellar_WriteThrough_BulkImport", ("Records", largest)))} KiB; LiteDB {Kib(Find("BulkImport", "LiteDb_InsertBulk", ("Records", largest)))} KiB; SQLite {Kib(Find("BulkImport", "Sqlite_Normal_Transaction", ("Records", largest)))} KiB; ZoneTree {Kib(Find("BulkImport", "ZoneTree_Upserts", ("Records", largest)))} KiB; plain file {Kib(Find("BulkImport", "FileStream_Ceiling", ("Records", largest)))} KiB"));
        goals.Add(NotMeasurable("7", "scan query ≤ 1.2× FastDB's time",
            $"ours {Time(Find("ScanQuery", "Stellar_Query"))}; LiteDB {Time(Find("ScanQuery", "LiteDb_Find"))}; SQLite {Time(Find("ScanQuery", "Sqlite_Where"))}"));
        goals.Add(NotMeasurable("7", "open time ≤ 0.5× FastDB's",
            $"ours {Time(Find("Open", "Stellar_Plain"))} (LZ4+AES {Time(Find("Open", "Stellar_Lz4_AesGcm"))}); LiteDB {Time(Find("Open", "LiteDb"))}; SQLite {Time(Find("Open", "Sqlite_Normal"))}"));

        var cores = rows.Where(r => r.Workload == "Encode").Select(r => r.Parameters.GetValueOrDefault("Cores", "0"))
            .Select(c => int.TryParse(c, CultureInfo.InvariantCulture, out var n) ? n : 0).DefaultIfEmpty(0).Max();
        goals.Add(AtLeast("4", $"encode, 2 KB records, all ({cores}) cores: LZ4 + AES-GCM ≥ 0.8× plain",
            Find("Encode", "Plain", ("RecordBytes", 2048), ("Cores", cores)),
            Find("Encode", "Lz4_AesGcm", ("RecordBytes", 2048), ("Cores", cores)), 0.8, "plain time / LZ4+AES time (= LZ4+AES rate / plain rate)"));
        return goals;
    }

    public ResultRow? Find(string workload, string method, params (string Name, object Value)[] parameters) =>
        rows.FirstOrDefault(r => r.Workload == workload && r.Method == method && r.Has(parameters));

    public static string Time(ResultRow? row) => row?.MeanNs is not { } ns ? "n/a"
        : ns >= 1e9 ? $"{ns / 1e9:N2} s"
        : ns >= 1e6 ? $"{ns / 1e6:N1} ms"
        : ns >= 1e3 ? $"{ns / 1e3:N1} µs"
        : $"{ns:N0} ns";

    public static string Rate(ResultRow? row) => row?.OpsPerSecond is { } ops
        ? ops.ToString(ops < 10 ? "N2" : "N0", CultureInfo.InvariantCulture)
        : "n/a";

    public static string Kib(ResultRow? row) => row?.DiskKiB is { } kib ? kib.ToString("N0", CultureInfo.InvariantCulture) : "n/a";

    private static double? Ratio(ResultRow? numerator, ResultRow? denominator) =>
        numerator?.MeanNs is { } n && denominator?.MeanNs is { } d && d > 0 ? n / d : null;

    /// <summary>A goal "<paramref name="faster"/> is at least <paramref name="target"/>× as fast": its time divides the other's.</summary>
    private static GoalRow AtLeast(string issue, string goal, ResultRow? slower, ResultRow? faster, double target, string measured)
    {
        var ratio = Ratio(slower, faster);
        var status = ratio is null ? "not measured" : ratio >= target ? "met" : "**MISSED**";
        return new GoalRow(issue, goal, measured, ratio, $"≥ {target.ToString(CultureInfo.InvariantCulture)}×", status);
    }

    private static GoalRow Info(string issue, string goal, double? ratio, string measured) =>
        new(issue, goal, measured, ratio, "(no number set)", ratio is null ? "not measured" : "info");

    private static GoalRow NotMeasurable(string issue, string goal, string measured) =>
        new(issue, goal, measured, null, "vs FastDB", NotServed);
}
