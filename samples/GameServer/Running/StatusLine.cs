using System.Diagnostics;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>Prints one status line a second while the server runs: online players, tick p99 so far, writes/s, store size.</summary>
internal static class StatusLine
{
    public static async Task RunAsync(TcpGameServer server, DataDirectory? data, TextWriter output, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var lastWrites = 0L;
        var lastTime = TimeSpan.Zero;
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        try
        {
            while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
            {
                var now = clock.Elapsed;
                var writes = server.Writes.Total;
                var rate = (writes - lastWrites) / (now - lastTime).TotalSeconds;
                (lastWrites, lastTime) = (writes, now);
                var ticks = server.Ticks.Summarize();
                var size = data is null ? "not persisted" : Format.Bytes(data.SizeOnDisk());
                output.WriteLine($"[{now.TotalSeconds,4:N0} s] online {server.Online,4} | tick p99 {ticks.P99,6:N2} ms (max {ticks.Max:N2}) | writes/s {rate,7:N0} | store {size}");
            }
        }
        catch (OperationCanceledException)
        {
            // The run is over.
        }
    }
}
