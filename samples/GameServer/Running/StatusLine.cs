using System.Diagnostics;
using Spectre.Console;
using Spectre.Console.Rendering;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// Shows the server's state once a second while it runs: online players, tick p99 so far, writes/s, the store's commit
/// and fsync p99 (read from its instruments), store size; with <c>--metrics console</c>, every store instrument too. On a
/// terminal it is one live display redrawn in place (Spectre.Console); when the output is redirected (a CI log, a
/// test) it is one plain line a second, and the instruments every <see cref="MetricsEvery"/> seconds and at the end.
/// </summary>
internal static class StatusLine
{
    /// <summary>Plain output prints the instruments this often (in seconds), and once more at the end.</summary>
    private const int MetricsEvery = 5;

    public static Task RunAsync(TcpGameServer server, DataDirectory? data, StoreInstruments? store, MetricsExport metrics, TextWriter output, CancellationToken cancellationToken) =>
        ReferenceEquals(output, Console.Out) && !Console.IsOutputRedirected && AnsiConsole.Profile.Capabilities.Interactive
            ? LiveAsync(new Status(server, data, store), metrics, cancellationToken)
            : PlainAsync(new Status(server, data, store), metrics, output, cancellationToken);

    private static async Task PlainAsync(Status status, MetricsExport metrics, TextWriter output, CancellationToken cancellationToken)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        var seconds = 0;
        try
        {
            while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
            {
                output.WriteLine(status.Line());
                if (++seconds % MetricsEvery == 0)
                {
                    PrintMetrics(status, metrics, output);
                }
            }
        }
        catch (OperationCanceledException)
        {
            // The run is over: the instruments as they ended.
            PrintMetrics(status, metrics, output);
        }
    }

    private static void PrintMetrics(Status status, MetricsExport metrics, TextWriter output)
    {
        if (metrics != MetricsExport.Console || status.Store is null)
        {
            return;
        }

        output.WriteLine($"-- {StoreTelemetry.MeterName} metrics --");
        foreach (var line in status.Store.Describe())
        {
            output.WriteLine(line);
        }
    }

    private static async Task LiveAsync(Status status, MetricsExport metrics, CancellationToken cancellationToken)
    {
        await AnsiConsole.Live(Render(status, metrics)).AutoClear(false).StartAsync(async context =>
        {
            using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
            try
            {
                while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
                {
                    context.UpdateTarget(Render(status, metrics));
                }
            }
            catch (OperationCanceledException)
            {
                context.UpdateTarget(Render(status, metrics));
            }
        }).ConfigureAwait(false);
    }

    private static IRenderable Render(Status status, MetricsExport metrics)
    {
        var fields = status.Fields();
        var line = new Table().Border(TableBorder.Rounded).Title("Stellar.Store game server");
        foreach (var (name, _) in fields)
        {
            line.AddColumn(new TableColumn(name).RightAligned());
        }

        line.AddRow(fields.Select(f => (IRenderable)new Text(f.Value)).ToArray());
        if (metrics != MetricsExport.Console || status.Store is null)
        {
            return line;
        }

        var instruments = new Table().Border(TableBorder.Simple).Title($"{StoreTelemetry.MeterName} instruments").AddColumn("instrument");
        foreach (var described in status.Store.Describe())
        {
            instruments.AddRow(new Text(described));
        }

        return new Rows(line, instruments);
    }

    /// <summary>The values the status shows, and the write rate since the last look.</summary>
    private sealed class Status(TcpGameServer server, DataDirectory? data, StoreInstruments? store)
    {
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private long _lastWrites;
        private TimeSpan _lastTime;

        public StoreInstruments? Store => store;

        /// <summary>The fields of the status, updating the write rate: name and value.</summary>
        public IReadOnlyList<(string Name, string Value)> Fields()
        {
            var now = _clock.Elapsed;

            // The store's own count of records written when there is a store; the game's count of acknowledged writes without one.
            var writes = store?.Writes ?? server.Writes.Total;
            var rate = (writes - _lastWrites) / (now - _lastTime).TotalSeconds;
            (_lastWrites, _lastTime) = (writes, now);

            var size = data is null ? "not persisted" : Format.Bytes(data.SizeOnDisk());
            return
            [
                ("time", $"{now.TotalSeconds:N0} s"),
                ("online", $"{server.Online}"),
                ("tick p99", $"{server.Ticks.Percentile(99):N2} ms (max {server.Ticks.Max:N2})"),
                ("writes/s", $"{rate:N0}"),
                ("commit p99", store is null ? "-" : $"{store.CommitP99:N2} ms"),
                ("fsync p99", store is null ? "-" : $"{store.FsyncP99:N2} ms"),
                ("store", size),
            ];
        }

        public string Line()
        {
            var fields = Fields();
            return $"[{fields[0].Value,6}] " + string.Join(" | ", fields.Skip(1).Select(f => $"{f.Name} {f.Value}"));
        }
    }
}
