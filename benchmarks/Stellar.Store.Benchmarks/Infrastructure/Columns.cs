using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// The extra columns: the median time per operation with its 95% interval (see <see cref="MedianInterval"/>) and the
/// number of samples, operations per second and MB/s of raw record bytes (both from the median), and size on disk, in all and per
/// record where the workload says how many records it stores.
/// </summary>
public static class Columns
{
    /// <summary>Every extra column.</summary>
    public static IColumn[] All { get; } =
    [
        new MetricColumn("MedianNs", "Median time per operation, ns", (summary, c) => Interval(summary, c)?.Median, "F1"),
        new MetricColumn("CiLowNs", "Low end of the 95% interval of the median, ns", (summary, c) => Interval(summary, c)?.Low, "F1"),
        new MetricColumn("CiHighNs", "High end of the 95% interval of the median, ns", (summary, c) => Interval(summary, c)?.High, "F1"),
        new MetricColumn("Samples", "Measured iterations across all launches", (summary, c) => Interval(summary, c)?.Samples, "F0"),
        new MetricColumn("Ops/s", "Operations (records, for a bulk import) per second", OpsPerSecond, "N0"),
        new MetricColumn("MB/s", "Raw record megabytes (10^6 B) per second", (summary, c) =>
            OpsPerSecond(summary, c) is { } ops && SideMetrics.Read(c, SideMetrics.BytesPerOp) is { } bytes
                ? ops * bytes / 1e6
                : null, "N1"),
        new MetricColumn("Pause µs", "Median time a checkpoint held the collection's writer, µs", (_, c) => SideMetrics.Read(c, SideMetrics.WriterPauseMicroseconds), "F1"),
        new MetricColumn("Copied KiB", "Median bytes a checkpoint copied (the rest it shared by hard link), in KiB", (_, c) =>
            SideMetrics.Read(c, SideMetrics.CopiedBytes) is { } bytes ? bytes / 1024 : null, "N0"),
        new MetricColumn("Written KiB", "Median bytes the store's shard files grew by since the last checkpoint, in KiB", (_, c) =>
            SideMetrics.Read(c, SideMetrics.WrittenBytes) is { } bytes ? bytes / 1024 : null, "N0"),
        new MetricColumn("Disk KiB", "Bytes the store took on disk after the workload, in KiB", (_, c) =>
            SideMetrics.Read(c, SideMetrics.DiskBytes) is { } bytes ? bytes / 1024 : null, "N0"),
        new MetricColumn("Disk B/rec", "Bytes the store took on disk after the workload, per record it holds", (_, c) =>
            SideMetrics.Read(c, SideMetrics.DiskBytes) is { } bytes && SideMetrics.Read(c, SideMetrics.RecordsStored) is { } records and > 0
                ? bytes / records
                : null, "N1"),
    ];

    private static double? OpsPerSecond(Summary summary, BenchmarkCase benchmarkCase) =>
        (Interval(summary, benchmarkCase)?.Median ?? summary[benchmarkCase]?.ResultStatistics?.Mean) is { } ns and > 0
            ? (SideMetrics.Read(benchmarkCase, SideMetrics.OpsPerOp) ?? 1) * 1e9 / ns
            : null;

    private static MedianInterval? Interval(Summary summary, BenchmarkCase benchmarkCase) =>
        summary[benchmarkCase]?.ResultStatistics?.OriginalValues is { } values ? MedianInterval.Of(values) : null;

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
