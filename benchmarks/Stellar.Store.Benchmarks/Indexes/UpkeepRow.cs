using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// One measured run of one row of the <c>upkeep</c> verb: how long <paramref name="Writes"/> upserts of 64 callers took
/// in a store keeping <paramref name="Indexes"/> indexes, in round <paramref name="Run"/>.
/// </summary>
internal sealed record UpkeepRow(int Run, int Indexes, int Callers, long Writes, double Seconds)
{
    private const string Header = "Run,Indexes,Callers,Writes,Seconds,NsPerWrite";

    /// <summary>The time per write across all callers (1 / throughput), in nanoseconds.</summary>
    public double NsPerWrite => Seconds * 1e9 / Writes;

    public static string ToCsv(IEnumerable<UpkeepRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Indexes, r.Callers, r.Writes, r.Seconds, r.NsPerWrite }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of an <c>upkeep.csv</c> written by <see cref="ToCsv"/>; none when the file does not exist.</summary>
    public static List<UpkeepRow> Load(string path) =>
        Report.Csv.Rows(path, Header).Select(c => new UpkeepRow(
            int.Parse(c[0], CultureInfo.InvariantCulture), int.Parse(c[1], CultureInfo.InvariantCulture),
            int.Parse(c[2], CultureInfo.InvariantCulture), long.Parse(c[3], CultureInfo.InvariantCulture),
            double.Parse(c[4], CultureInfo.InvariantCulture))).ToList();
}
