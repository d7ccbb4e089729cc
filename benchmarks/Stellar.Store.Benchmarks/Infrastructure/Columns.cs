using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>The extra columns: operations per second, MB/s of raw record bytes, and size on disk.</summary>
public static class Columns
{
    /// <summary>Every extra column.</summary>
    public static IColumn[] All { get; } =
    [
        new MetricColumn("Ops/s", "Operations (records, for a bulk import) per second", OpsPerSecond, "N0"),
        new MetricColumn("MB/s", "Raw record megabytes (10^6 B) per second", (summary, c) =>
            OpsPerSecond(summary, c) is { } ops && SideMetrics.Read(c, SideMetrics.BytesPerOp) is { } bytes
                ? ops * bytes / 1e6
                : null, "N1"),
        new MetricColumn("Disk KiB", "Bytes the store took on disk after the workload, in KiB", (_, c) =>
            SideMetrics.Read(c, SideMetrics.DiskBytes) is { } bytes ? bytes / 1024 : null, "N0"),
    ];

    private static double? OpsPerSecond(Summary summary, BenchmarkCase benchmarkCase) =>
        MeanNanoseconds(summary, benchmarkCase) is { } ns and > 0
            ? (SideMetrics.Read(benchmarkCase, SideMetrics.OpsPerOp) ?? 1) * 1e9 / ns
            : null;

    private static double? MeanNanoseconds(Summary summary, BenchmarkCase benchmarkCase) =>
        summary[benchmarkCase]?.ResultStatistics?.Mean;

    private sealed class MetricColumn(string name, string legend, Func<Summary, BenchmarkCase, double?> value, string format) : IColumn
    {
        public string Id => $"{nameof(MetricColumn)}.{name}";

        public string ColumnName => name;

        public bool AlwaysShow => true;

        public ColumnCategory Category => ColumnCategory.Custom;

        public int PriorityInCategory => 0;

        public bool IsNumeric => true;

        public UnitType UnitType => UnitType.Dimensionless;

        public string Legend => legend;

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
            value(summary, benchmarkCase) is { } v
                ? v.ToString(Math.Abs(v) < 10 ? "N2" : format, CultureInfo.InvariantCulture).Replace(",", "", StringComparison.Ordinal)
                : "-";

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

        public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

        public bool IsAvailable(Summary summary) => true;
    }
}
