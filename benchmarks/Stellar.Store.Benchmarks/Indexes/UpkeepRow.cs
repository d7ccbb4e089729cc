using System.Globalization;
using System.Text;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// One measured run of one row of the <c>upkeep</c> verb: how long <paramref name="Writes"/> upserts of 64 callers took
/// in a store keeping the indexes <paramref name="Kept"/> names (<see cref="UpkeepMix.Rows"/>), in round
/// <paramref name="Run"/>; and, over the same writes, the process's CPU time (every thread: the callers, the writer, the
/// device thread), the collector's pauses and the bytes allocated (every thread); and the store's commit groups and its
/// writer's time in them (<paramref name="Groups"/>, <paramref name="CommitSeconds"/>). Each is NaN in a file of a
/// version that did not record it: the first had none of them, the second no allocations, the third no groups.
/// </summary>
internal sealed record UpkeepRow(int Run, string Kept, int Callers, long Writes, double Seconds, double CpuSeconds, double PauseSeconds, double AllocatedBytes, double Groups, double CommitSeconds)
{
    private const string Header = "Run,Kept,Indexes,Callers,Writes,Seconds,NsPerWrite,CpuNsPerWrite,PauseMs,AllocatedBytesPerWrite,WritesPerGroup,CommitShare";

    /// <summary>The header of the verb's third version, which did not record the commit groups.</summary>
    private const string ThirdHeader = "Run,Kept,Indexes,Callers,Writes,Seconds,NsPerWrite,CpuNsPerWrite,PauseMs,AllocatedBytesPerWrite";

    /// <summary>The header of the verb's second version, which did not record the bytes allocated.</summary>
    private const string SecondHeader = "Run,Kept,Indexes,Callers,Writes,Seconds,NsPerWrite,CpuNsPerWrite,PauseMs";

    /// <summary>The header of the verb's first version, whose rows were the count of indexes kept (0, 1 or 2).</summary>
    private const string FirstHeader = "Run,Indexes,Callers,Writes,Seconds,NsPerWrite";

    /// <summary>The number of indexes the row keeps.</summary>
    public int Indexes => Kept == UpkeepMix.NoIndex ? 0 : Kept.Split('+').Length;

    public double NsPerWrite => Seconds * 1e9 / Writes;

    public double CpuNsPerWrite => CpuSeconds * 1e9 / Writes;

    public double AllocatedBytesPerWrite => AllocatedBytes / Writes;

    /// <summary>The writes a commit group held, on average: how many writes one turn of the writer served.</summary>
    public double WritesPerGroup => Writes / Groups;

    /// <summary>The share of the row's time the writer spent committing (its indexes' upkeep included): 1 when it never waited for a write.</summary>
    public double CommitShare => CommitSeconds / Seconds;

    public static string ToCsv(IEnumerable<UpkeepRow> rows)
    {
        var csv = new StringBuilder(Header).Append('\n');
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(",", new object[] { r.Run, r.Kept, r.Indexes, r.Callers, r.Writes, r.Seconds, r.NsPerWrite, r.CpuNsPerWrite, r.PauseSeconds * 1e3, r.AllocatedBytesPerWrite, r.WritesPerGroup, r.CommitShare }
                .Select(v => Convert.ToString(v, CultureInfo.InvariantCulture))));
        }

        return csv.ToString();
    }

    /// <summary>The rows of <paramref name="path"/>, of this version or an earlier one (the first's rows kept the score, then the name too).</summary>
    public static List<UpkeepRow> Load(string path)
    {
        var header = File.Exists(path) ? File.ReadLines(path).FirstOrDefault() : null;
        if (header == FirstHeader)
        {
            return Report.Csv.Rows(path, FirstHeader).Select(c => new UpkeepRow(
                Int(c[0]), int.Parse(c[1], CultureInfo.InvariantCulture) switch { 0 => UpkeepMix.NoIndex, 1 => UpkeepMix.Score, _ => UpkeepMix.ScoreAndName },
                Int(c[2]), long.Parse(c[3], CultureInfo.InvariantCulture), Number(c[4]), double.NaN, double.NaN, double.NaN, double.NaN, double.NaN)).ToList();
        }

        var second = header == SecondHeader;
        var third = header == ThirdHeader;
        return Report.Csv.Rows(path, second ? SecondHeader : third ? ThirdHeader : Header).Select(c =>
        {
            var writes = long.Parse(c[4], CultureInfo.InvariantCulture);
            var seconds = Number(c[5]);
            var groups = second || third ? double.NaN : writes / Number(c[10]);
            var commitSeconds = second || third ? double.NaN : Number(c[11]) * seconds;
            return new UpkeepRow(
                Int(c[0]), c[1], Int(c[3]), writes, seconds, Number(c[7]) * writes / 1e9, Number(c[8]) / 1e3, second ? double.NaN : Number(c[9]) * writes, groups, commitSeconds);
        }).ToList();
    }

    private static int Int(string text) => int.Parse(text, CultureInfo.InvariantCulture);

    private static double Number(string text) => double.Parse(text, CultureInfo.InvariantCulture);
}
