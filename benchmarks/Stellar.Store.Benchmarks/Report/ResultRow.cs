using System.Globalization;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>One row of a BenchmarkDotNet CSV report.</summary>
internal sealed record ResultRow(string Workload, string Method, IReadOnlyDictionary<string, string> Parameters, string Categories,
    double? MeanNs, double? OpsPerSecond, double? MBPerSecond, double? DiskKiB, double? AllocatedBytes)
{
    /// <summary>The median time per operation, ns (the mean when the report has no median).</summary>
    public double? MedianNs { get; init; }

    /// <summary>The 95% interval of the median, ns; equal to the median when there is only one sample.</summary>
    public double? LowNs { get; init; }

    /// <summary>The high end of the 95% interval of the median, ns.</summary>
    public double? HighNs { get; init; }

    /// <summary>Bytes on disk per record the store holds after the workload, where the workload says how many it holds.</summary>
    public double? DiskBytesPerRecord { get; init; }

    /// <summary>Measured iterations across all launches.</summary>
    public int Samples { get; init; }

    /// <summary>The durability pairing among the row's categories, or empty.</summary>
    public string Pairing => Categories.Split(',').FirstOrDefault(c => Infrastructure.Pairing.All.Contains(c)) ?? "";

    /// <summary>The parameters as <c>Name=Value</c> pairs.</summary>
    public string ParameterText => string.Join(", ", Parameters.Select(p => $"{p.Key}={p.Value}"));

    /// <summary>Whether the row is one of ours (every encode row is).</summary>
    public bool IsStellar => Method.StartsWith("Stellar", StringComparison.Ordinal) || Workload == "Encode";

    /// <summary>Whether every given parameter has the given value.</summary>
    public bool Has(params (string Name, object Value)[] parameters) =>
        parameters.All(p => Parameters.TryGetValue(p.Name, out var v) && v == Convert.ToString(p.Value, CultureInfo.InvariantCulture));

    /// <summary>Reads every row of a report written with <c>BenchConfig.CsvStyle</c>.</summary>
    public static IEnumerable<ResultRow> Load(string csvPath)
    {
        var lines = File.ReadAllLines(csvPath);
        if (lines.Length < 2)
        {
            yield break;
        }

        var header = Csv.Split(lines[0]);
        var workload = Path.GetFileName(csvPath).Split('-')[0].Split('.')[^1].Replace("Benchmarks", "", StringComparison.Ordinal);
        var mean = Array.IndexOf(header, "Mean [ns]");
        var firstParameter = Math.Max(Array.IndexOf(header, "WarmupCount"), Array.IndexOf(header, "Categories")) + 1;
        foreach (var line in lines.Skip(1))
        {
            var cells = Csv.Split(line);
            string Cell(string name) => Array.IndexOf(header, name) is var i and >= 0 ? cells[i] : "";
            var parameters = new Dictionary<string, string>();
            for (var i = firstParameter; i < mean; i++)
            {
                parameters[header[i]] = cells[i];
            }

            var meanNs = Number(Cell("Mean [ns]"));

            // Rows slower than one per second may have been written with Ops/s rounded to 0.
            var ops = Number(Cell("Ops/s")) is { } o and > 0 ? o : meanNs is { } ns and > 0 ? 1e9 / ns : (double?)null;
            var median = Number(Cell("MedianNs")) ?? meanNs;
            yield return new ResultRow(workload, Cell("Method"), parameters, Cell("Categories"), meanNs,
                ops, Number(Cell("MB/s")), Number(Cell("Disk KiB")), Number(Cell("Allocated [B]")))
            {
                MedianNs = median,
                LowNs = Number(Cell("CiLowNs")) ?? median,
                HighNs = Number(Cell("CiHighNs")) ?? median,
                Samples = (int)(Number(Cell("Samples")) ?? 1),
                DiskBytesPerRecord = Number(Cell("Disk B/rec")),
            };
        }
    }

    private static double? Number(string text) =>
        double.TryParse(text.Replace(",", "", StringComparison.Ordinal), NumberStyles.Float, CultureInfo.InvariantCulture, out var value)
            ? value
            : null;
}

/// <summary>Splits one CSV line, honouring double quotes.</summary>
internal static class Csv
{
    /// <summary>
    /// The cells of every line after the header of one of our own result files; none when the file does not exist
    /// (that figure was not taken). A file whose header is not <paramref name="header"/> was written by another version.
    /// </summary>
    public static IEnumerable<string[]> Rows(string path, string header)
    {
        if (!File.Exists(path))
        {
            return [];
        }

        var lines = File.ReadAllLines(path);
        if (lines.Length == 0 || lines[0] != header)
        {
            throw new InvalidDataException($"{path} is not a result file of this version (header: {header}).");
        }

        return lines.Skip(1).Where(l => l.Length > 0).Select(Split).ToList();
    }

    public static string[] Split(string line)
    {
        var cells = new List<string>();
        var cell = new System.Text.StringBuilder();
        var quoted = false;
        for (var i = 0; i < line.Length; i++)
        {
            var c = line[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < line.Length && line[i + 1] == '"')
                {
                    cell.Append('"');
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
                else
                {
                    cell.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                cells.Add(cell.ToString());
                cell.Clear();
            }
            else
            {
                cell.Append(c);
            }
        }

        cells.Add(cell.ToString());
        return cells.ToArray();
    }
}
