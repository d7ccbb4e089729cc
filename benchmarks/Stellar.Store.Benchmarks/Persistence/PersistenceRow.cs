using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// One measured run of one row of the <c>persistence</c> verb. <see cref="Workload"/> is <c>Persist</c> (every actor
/// persists its events one at a time; <see cref="Seconds"/> from the first command to the last reply) or
/// <c>Recovery</c> (one actor's recovery of <see cref="Events"/> events after a restart). <see cref="Sqlite"/> is
/// what SQLite reported on the plugin's connections for the SQL rows (journal mode / synchronous, and how many
/// connections were checked), empty for the others.
/// </summary>
internal sealed record PersistenceRow(int Run, string Journal, string Pairing, string Workload, int Actors, long Events, double Seconds, string Sqlite)
{
    private const string Header = "Run,Journal,Pairing,Workload,Actors,Events,Seconds,Sqlite,EventsPerSecond";

    /// <summary>Events persisted (or replayed) per second.</summary>
    public double EventsPerSecond => Events / Seconds;

    public static string ToCsv(IEnumerable<PersistenceRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Journal, r.Pairing, r.Workload, r.Actors, r.Events, r.Seconds, r.Sqlite, r.EventsPerSecond }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of a <c>persistence.csv</c> written by <see cref="ToCsv"/>; none when the file does not exist.</summary>
    public static List<PersistenceRow> Load(string path) =>
        Report.Csv.Rows(path, Header).Select(c => new PersistenceRow(
            int.Parse(c[0], CultureInfo.InvariantCulture), c[1], c[2], c[3], int.Parse(c[4], CultureInfo.InvariantCulture),
            long.Parse(c[5], CultureInfo.InvariantCulture), double.Parse(c[6], CultureInfo.InvariantCulture), c[7])).ToList();
}
