using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Units;

/// <summary>
/// One measured run of one row of the <c>units</c> verb: a write row (units and records per second over the run) or a
/// snapshot-read row (cuts per second, where a cut is one snapshot and a read of each collection in it). Rounds is how
/// many cross-collection rounds the coordinator made visible during the run (zero for other rows), from which the units
/// per round and the time per round follow.
/// </summary>
internal sealed record UnitRow(int Run, string Mode, string Kind, int Callers, double Seconds, long Units, long Records, long Rounds)
{
    private const string Header = "Run,Mode,Kind,Callers,Seconds,Units,Records,Rounds,UnitsPerSecond,RecordsPerSecond";

    /// <summary>Units (or snapshot cuts) per second.</summary>
    public double UnitsPerSecond => Units / Seconds;

    /// <summary>Records written (or read) per second.</summary>
    public double RecordsPerSecond => Records / Seconds;

    public static string ToCsv(IEnumerable<UnitRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Mode, r.Kind, r.Callers, r.Seconds, r.Units, r.Records, r.Rounds, r.UnitsPerSecond, r.RecordsPerSecond }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of a <c>units.csv</c> written by <see cref="ToCsv"/>; none when the file does not exist.</summary>
    public static List<UnitRow> Load(string path) =>
        Report.Csv.Rows(path, Header).Select(c => new UnitRow(
            int.Parse(c[0], CultureInfo.InvariantCulture), c[1], c[2], int.Parse(c[3], CultureInfo.InvariantCulture),
            double.Parse(c[4], CultureInfo.InvariantCulture), long.Parse(c[5], CultureInfo.InvariantCulture),
            long.Parse(c[6], CultureInfo.InvariantCulture), long.Parse(c[7], CultureInfo.InvariantCulture))).ToList();
}
