using System.Globalization;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>One line of <c>memory.csv</c>, written by the <c>memory</c> verb.</summary>
internal sealed record MemoryRow(string Kind, long Records, long RetainedBytes, long ResidentBytes, double BytesPerRecord)
{
    private const string Header = "Kind,Records,RetainedBytes,ResidentBytes,BytesPerRecord";

    /// <summary>The rows of <paramref name="path"/>; none when the file does not exist.</summary>
    public static List<MemoryRow> Load(string path)
    {
        if (!File.Exists(path))
        {
            return [];
        }

        var lines = File.ReadAllLines(path);
        if (lines.Length == 0 || lines[0] != Header)
        {
            throw new InvalidDataException($"{path} is not a memory CSV of this version (header: {Header}).");
        }

        return lines.Skip(1).Where(l => l.Length > 0).Select(l => l.Split(',')).Select(c => new MemoryRow(
            c[0], long.Parse(c[1], CultureInfo.InvariantCulture), long.Parse(c[2], CultureInfo.InvariantCulture),
            long.Parse(c[3], CultureInfo.InvariantCulture), double.Parse(c[4], CultureInfo.InvariantCulture))).ToList();
    }
}
