using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Indexes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Open;
using Stellar.Store.Benchmarks.Units;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// The <c>report</c> verb: reads BenchmarkDotNet's CSV reports, copies them and their markdown into
/// <c>benchmarks/results/bdn</c>, writes the goal ratio table (<c>ratios.md</c>, <c>ratios.csv</c>), our own
/// figures, the chart (<c>chart.svg</c>) and <c>summary.md</c>, and puts the summary into <c>benchmarks/README.md</c>
/// between its results markers. Times are medians with their 95% interval.
/// </summary>
internal static class ReportCommand
{
    public const string BeginMarker = "<!-- results:begin (written by the report verb) -->";
    public const string EndMarker = "<!-- results:end -->";

    public static int Run(string artifacts, string results, string? readme)
    {
        var reports = Path.Combine(artifacts, "results");
        if (!Directory.Exists(reports) || Directory.GetFiles(reports, "*-report.csv").Length == 0)
        {
            Console.Error.WriteLine($"No BenchmarkDotNet CSV reports in {reports}: run the benchmarks first.");
            return 1;
        }

        var bdn = Path.Combine(results, "bdn");
        Directory.CreateDirectory(bdn);
        foreach (var file in Directory.GetFiles(reports).Where(f => f.EndsWith("-report.csv", StringComparison.Ordinal) || f.EndsWith("-report-github.md", StringComparison.Ordinal)))
        {
            File.Copy(file, Path.Combine(bdn, Path.GetFileName(file).Replace("Stellar.Store.Benchmarks.", "", StringComparison.Ordinal)), overwrite: true);
        }

        var rows = Directory.GetFiles(reports, "*-report.csv").Order(StringComparer.Ordinal).SelectMany(ResultRow.Load).ToList();
        var goals = new Goals(rows, GameRow.Load(Path.Combine(results, "game-mix.csv")), MemoryRow.Load(Path.Combine(results, "memory.csv")),
            TickRow.Load(Path.Combine(results, "game-tick.csv")), UnitRow.Load(Path.Combine(results, "units.csv")),
            UpkeepRow.Load(Path.Combine(results, "upkeep.csv")), OpenPairRow.Load(Path.Combine(results, "opens.csv")),
            OpenPairRow.Load(Path.Combine(results, "opens-fresh.csv")));
        var goalRows = goals.Evaluate();
        File.WriteAllText(Path.Combine(results, "ratios.csv"), RatiosCsv(goalRows));
        File.WriteAllText(Path.Combine(results, "ratios.md"), RatiosMarkdown(goalRows));
        File.WriteAllText(Path.Combine(results, "chart.svg"), SvgChart.Render(rows));

        var summary = new StringBuilder();
        summary.AppendLine("### Environment").AppendLine().AppendLine("```").AppendLine(Environment(reports)).AppendLine("```").AppendLine();
        summary.AppendLine("### Goals").AppendLine().Append(RatiosMarkdown(goalRows)).AppendLine();
        summary.AppendLine("### Encode path").AppendLine().Append(EncodeTable(rows)).AppendLine();
        summary.AppendLine("### Our own figures").AppendLine().Append(OwnFigures(goals, rows)).AppendLine();
        var memory = Path.Combine(results, "memory.md");
        if (File.Exists(memory))
        {
            summary.AppendLine("### Memory per record").AppendLine().AppendLine(File.ReadAllText(memory).TrimEnd()).AppendLine();
        }

        var game = Path.Combine(results, "game-mix.md");
        if (File.Exists(game))
        {
            summary.AppendLine("### Game-shaped mix").AppendLine().AppendLine(File.ReadAllText(game).TrimEnd()).AppendLine();
        }

        var units = Path.Combine(results, "units.md");
        if (File.Exists(units))
        {
            summary.AppendLine("### Writes across collections").AppendLine().AppendLine(File.ReadAllText(units).TrimEnd()).AppendLine();
        }

        summary.AppendLine("### Every row").AppendLine().Append(AllRows(rows)).AppendLine();
        File.WriteAllText(Path.Combine(results, "summary.md"), summary + "![operations per second](chart.svg)\n");
        summary.AppendLine("![operations per second](results/chart.svg)");
        if (readme is not null && File.Exists(readme))
        {
            var text = File.ReadAllText(readme);
            var begin = text.IndexOf(BeginMarker, StringComparison.Ordinal);
            var end = text.IndexOf(EndMarker, StringComparison.Ordinal);
            if (begin >= 0 && end > begin)
            {
                text = text[..(begin + BeginMarker.Length)] + "\n\n" + summary + "\n" + text[end..];
                File.WriteAllText(readme, text);
            }
        }

        Console.WriteLine(RatiosMarkdown(goalRows));
        Console.WriteLine($"Wrote {results}: ratios.md, ratios.csv, chart.svg, summary.md, bdn/");
        return 0;
    }

    private static string Environment(string reports)
    {
        var markdown = Directory.GetFiles(reports, "*-report-github.md").Order(StringComparer.Ordinal).FirstOrDefault();
        if (markdown is null)
        {
            return "(no report)";
        }

        var lines = File.ReadAllLines(markdown);
        // The machine and runtime only: the job lines below them belong to one workload (README says which jobs run).
        return string.Join("\n", lines.SkipWhile(l => !l.StartsWith("```", StringComparison.Ordinal)).Skip(1)
            .TakeWhile(l => !l.StartsWith("```", StringComparison.Ordinal) && !l.StartsWith("Job=", StringComparison.Ordinal)
                && !l.StartsWith("Categories=", StringComparison.Ordinal))
            .Where(l => l.Length > 0));
    }

    private static string RatiosMarkdown(List<GoalRow> goals)
    {
        var md = new StringBuilder("| Goal | Measured as | Ratio of medians [95% interval] | Target | Status |\n|---|---|---:|---|---|\n");
        foreach (var g in goals)
        {
            var interval = g.Low is { } low && g.High is { } high
                ? $" [{low.ToString("N2", CultureInfo.InvariantCulture)}–{high.ToString("N2", CultureInfo.InvariantCulture)}]"
                : "";
            md.AppendLine(CultureInfo.InvariantCulture, $"| {g.Goal} | {g.Measured} | {(g.Ratio is { } r ? r.ToString("N2", CultureInfo.InvariantCulture) + "×" + interval : "–")} | {g.Target} | {g.Status} |");
        }

        return md.ToString();
    }

    private static string RatiosCsv(List<GoalRow> goals)
    {
        var csv = new StringBuilder("Goal,Measured,Ratio,Low,High,Target,Status\n");
        foreach (var g in goals)
        {
            csv.AppendLine(string.Join(",", new[]
                {
                    g.Goal, g.Measured, g.Ratio?.ToString("R", CultureInfo.InvariantCulture) ?? "", g.Low?.ToString("R", CultureInfo.InvariantCulture) ?? "",
                    g.High?.ToString("R", CultureInfo.InvariantCulture) ?? "", g.Target, g.Status,
                }
                .Select(v => $"\"{v.Replace("\"", "\"\"", StringComparison.Ordinal)}\"")));
        }

        return csv.ToString();
    }

    private static string EncodeTable(List<ResultRow> rows)
    {
        var encode = rows.Where(r => r.Workload == "Encode").ToList();
        var md = new StringBuilder("| Record | Cores | Plain MB/s (rec/s) | LZ4 MB/s (rec/s) | AES-GCM MB/s (rec/s) | LZ4+AES-GCM MB/s (rec/s) | LZ4+AES / plain |\n|---|---:|---:|---:|---:|---:|---:|\n");
        foreach (var group in encode.GroupBy(r => (Bytes: r.Parameters.GetValueOrDefault("RecordBytes", ""), Cores: r.Parameters.GetValueOrDefault("Cores", ""))))
        {
            string Cell(string method) => group.FirstOrDefault(r => r.Method == method) is { } row
                ? $"{row.MBPerSecond?.ToString("N0", CultureInfo.InvariantCulture) ?? "n/a"} ({Goals.Rate(row)})"
                : "n/a";
            var plain = group.FirstOrDefault(r => r.Method == "Plain")?.MeanNs;
            var both = group.FirstOrDefault(r => r.Method == "Lz4_AesGcm")?.MeanNs;
            var ratio = plain is { } p && both is { } b && b > 0 ? (p / b).ToString("N2", CultureInfo.InvariantCulture) + "×" : "n/a";
            md.AppendLine(CultureInfo.InvariantCulture, $"| ~{group.Key.Bytes} B | {group.Key.Cores} | {Cell("Plain")} | {Cell("Lz4")} | {Cell("AesGcm")} | {Cell("Lz4_AesGcm")} | {ratio} |");
        }

        return md.ToString();
    }

    private static string OwnFigures(Goals goals, List<ResultRow> rows)
    {
        var md = new StringBuilder("| Figure | Median [95% interval] |\n|---|---:|\n");
        void Add(string figure, ResultRow? row, bool rate = false) => md.AppendLine(CultureInfo.InvariantCulture, $"| {figure} | {(rate ? RateWithInterval(row) : TimeWithInterval(row))} |");
        Add("point read (`Get`, shared object) on 100,000 records", goals.Find("PointRead", "Stellar_Get"));
        Add("point read with `CopyOnRead`", goals.Find("PointRead", "Stellar_Get_CopyOnRead"));
        foreach (var bytes in rows.Where(r => r.Workload == "BlockAppend").Select(r => r.Parameters.GetValueOrDefault("BlockBytes", "")).Distinct())
        {
            foreach (var method in new[] { "Stellar_Buffered_FlushAtEnd", "Stellar_WriteThrough", "Stellar_Fsync" })
            {
                Add($"blocks/s appended, {bytes} B blocks, {method}", goals.Find("BlockAppend", method, ("BlockBytes", bytes)), rate: true);
            }
        }

        Add("open a store of 1,000,000 small records (to first read)", goals.Find("Open", "Stellar_Plain"));
        Add("the same with LZ4 + AES-GCM", goals.Find("Open", "Stellar_Lz4_AesGcm"));
        Add("open a store of 100,000 players after churn", goals.Find("Open", "Stellar_Plain_AfterChurn"));
        foreach (var method in new[] { "Stellar_Buffered_FlushAtEnd", "Stellar_WriteThrough", "Stellar_Fsync" })
        {
            Add($"single awaited insert, {method}: latency", goals.Find("SingleInsert", method));
        }

        foreach (var callers in new[] { 8, 64 })
        {
            foreach (var mode in new[] { "WriteThrough", "Fsync" })
            {
                Add($"{callers} concurrent writers, {mode}: inserts/s", goals.Find("ConcurrentWrite", $"Stellar_{mode}", ("Callers", callers), ("Op", "Insert")), rate: true);
            }
        }

        foreach (var records in rows.Where(r => r.Workload == "BulkImport").Select(r => r.Parameters.GetValueOrDefault("Records", "")).Distinct())
        {
            Add($"bulk import of {records} records: records/s", goals.Find("BulkImport", "Stellar_BulkImport_WriteThroughStore", ("Records", records)), rate: true);
        }

        return md.ToString();
    }

    private static string TimeWithInterval(ResultRow? row) => row?.MedianNs is null ? "n/a"
        : $"{Goals.Time(row)} [{Goals.Nanoseconds(row.LowNs ?? 0)}–{Goals.Nanoseconds(row.HighNs ?? 0)}]";

    private static string RateWithInterval(ResultRow? row)
    {
        if (row?.MedianNs is not { } median || row.OpsPerSecond is not { } ops)
        {
            return "n/a";
        }

        // Ops/s is from the median; the interval's ends scale the same way (a slower time is a lower rate).
        var low = ops * median / (row.HighNs ?? median);
        var high = ops * median / (row.LowNs ?? median);
        return $"{ops:N0}/s [{low:N0}–{high:N0}]";
    }

    private static string AllRows(List<ResultRow> rows)
    {
        var md = new StringBuilder("| Workload | Method | Pairing | Parameters | Median [95% interval] | Samples | Ops/s | MB/s | Disk KiB | Allocated B/op |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
        foreach (var r in rows)
        {
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {r.Workload} | {r.Method} | {r.Pairing} | {r.ParameterText} | {TimeWithInterval(r)} | {r.Samples} | {Goals.Rate(r)} | {r.MBPerSecond?.ToString("N1", CultureInfo.InvariantCulture) ?? "–"} | {Goals.Kib(r)} | {r.AllocatedBytes?.ToString("N0", CultureInfo.InvariantCulture) ?? "–"} |");
        }

        return md.ToString();
    }
}
