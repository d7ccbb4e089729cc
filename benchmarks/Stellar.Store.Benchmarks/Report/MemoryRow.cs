using System.Globalization;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>One line of <c>memory.csv</c>, written by the <c>memory</c> verb.</summary>
internal sealed record MemoryRow(string Kind, long Records, long RetainedBytes, long ResidentBytes, double BytesPerRecord)
{
    private const string Header = "Kind,Records,RetainedBytes,ResidentBytes,BytesPerRecord";

    /// <summary>The rows of <paramref name="path"/>; none when the file does not exist.</summary>
    public static List<MemoryRow> Load(string path) =>
        Csv.Rows(path, Header).Select(c => new MemoryRow(
            c[0], long.Parse(c[1], CultureInfo.InvariantCulture), long.Parse(c[2], CultureInfo.InvariantCulture),
            long.Parse(c[3], CultureInfo.InvariantCulture), double.Parse(c[4], CultureInfo.InvariantCulture))).ToList();
}
