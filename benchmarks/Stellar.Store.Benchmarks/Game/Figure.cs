using System.Globalization;
using Stellar.Store.Benchmarks.Infrastructure;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>A median over runs and its 95% interval (Low = High = Median with one run).</summary>
internal readonly record struct Figure(double Median, double Low, double High, int Samples)
{
    public static Figure Of(IReadOnlyList<double> values) => MedianInterval.Of(values) is { } m
        ? new Figure(m.Median, m.Low, m.High, m.Samples)
        : new Figure(values[0], values[0], values[0], values.Count);

    public override string ToString() => Samples < 2
        ? Median.ToString("N0", CultureInfo.InvariantCulture)
        : string.Create(CultureInfo.InvariantCulture, $"{Median:N0} [{Low:N0}–{High:N0}]");
}
