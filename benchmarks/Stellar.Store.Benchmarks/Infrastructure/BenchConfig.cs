using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using Perfolizer.Horology;
using Perfolizer.Metrology;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// The one configuration every run uses: memory diagnoser, the extra columns, GitHub markdown and CSV exporters
/// (CSV in nanoseconds and bytes without units, for the <c>report</c> verb), a baseline per category.
/// </summary>
public static class BenchConfig
{
    /// <summary>The CSV style the report reads: invariant culture, nanoseconds, bytes, no units in cells.</summary>
    public static SummaryStyle CsvStyle { get; } = new(CultureInfo.InvariantCulture, printUnitsInHeader: true,
        sizeUnit: SizeUnit.B, timeUnit: TimeUnit.Nanosecond, printUnitsInContent: false);

    /// <summary>The configuration; dry runs write their artifacts to the temp directory, not into the repository.</summary>
    public static IConfig Create()
    {
        var config = ManualConfig.CreateEmpty()
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(CategoriesColumn.Default)
            .AddColumn(Columns.All)
            .AddLogger(ConsoleLogger.Default)
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddExporter(MarkdownExporter.GitHub, new CsvExporter(CsvSeparator.Comma, CsvStyle))
            .AddAnalyser(DefaultConfig.Instance.GetAnalysers().ToArray())
            .AddValidator(DefaultConfig.Instance.GetValidators().ToArray())
            .AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)
            .WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared))
            .WithArtifactsPath(Scale.Dry ? Paths.DryArtifacts : Paths.Artifacts);
        return Scale.Dry ? config.WithOptions(ConfigOptions.DisableOptimizationsValidator) : config;
    }
}
