using System.Globalization;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// One figure of <c>game-tick.csv</c>: what the sample game server printed for the game-tick goals (its
/// <c>--compare --pairs 6</c> ratio line and its 5-minute, 200-bot summary), copied with the command that printed it.
/// </summary>
internal sealed record TickRow(string Figure, double Value, double? Low, double? High, string Command)
{
    private const string Header = "Figure,Value,Low,High,Command";

    /// <summary>The rows of <paramref name="path"/>; none when the file does not exist.</summary>
    public static List<TickRow> Load(string path) =>
        Csv.Rows(path, Header).Select(c => new TickRow(
            c[0], double.Parse(c[1], CultureInfo.InvariantCulture), Optional(c[2]), Optional(c[3]), c[4])).ToList();

    private static double? Optional(string cell) => cell.Length == 0 ? null : double.Parse(cell, CultureInfo.InvariantCulture);
}
