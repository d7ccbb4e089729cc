using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Open;

/// <summary>One open of the <c>opens</c> verb: round <paramref name="Run"/>, with <paramref name="Indexes"/> indexes declared and built, in <paramref name="Milliseconds"/>.</summary>
internal sealed record OpenPairRow(int Run, int Indexes, double Milliseconds)
{
    private const string Header = "Run,Indexes,Milliseconds";

    public static string ToCsv(IEnumerable<OpenPairRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Indexes, r.Milliseconds }.Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of an <c>opens.csv</c> written by <see cref="ToCsv"/>; none when the file does not exist.</summary>
    public static List<OpenPairRow> Load(string path) =>
        Report.Csv.Rows(path, Header).Select(c => new OpenPairRow(
            int.Parse(c[0], CultureInfo.InvariantCulture), int.Parse(c[1], CultureInfo.InvariantCulture),
            double.Parse(c[2], CultureInfo.InvariantCulture))).ToList();
}
