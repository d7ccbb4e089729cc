using System.Globalization;
using Stellar.Store.Samples.EventSourcedPlayers;

// Usage: [--data DIR] [--players N] [--commands N] [--snapshot-every N] [--durability buffered|write-through|fsync]
// Without --data the store lives in a temporary directory, deleted at the end.
var options = args.Select((a, i) => (a, i)).Where(p => p.a.StartsWith("--", StringComparison.Ordinal))
    .ToDictionary(p => p.a, p => p.i + 1 < args.Length ? args[p.i + 1] : "", StringComparer.Ordinal);
string Option(string name, string fallback) => options.TryGetValue(name, out var value) ? value : fallback;
int Number(string name, int fallback) => int.Parse(Option(name, fallback.ToString(CultureInfo.InvariantCulture)), CultureInfo.InvariantCulture);

var keep = options.ContainsKey("--data");
var directory = keep ? Option("--data", "") : Path.Combine(Path.GetTempPath(), $"event-sourced-players-{Guid.NewGuid():n}");
try
{
    var result = await Demo.RunAsync(directory, Number("--players", 20), Number("--commands", 50), Number("--snapshot-every", 10), Option("--durability", "write-through"), Console.Out);
    return result.Recovered ? 0 : 1;
}
finally
{
    if (!keep && Directory.Exists(directory))
    {
        Directory.Delete(directory, recursive: true);
    }
}
