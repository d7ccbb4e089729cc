using System.Net;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// <c>--serve</c>: the server alone, for real clients, until Ctrl+C or SIGTERM; then every online character is
/// written and the store is closed. Prints <c>listening on ADDRESS:PORT</c> first (the port chosen, if 0 was given).
/// </summary>
internal static class ServeMode
{
    public static async Task<int> RunAsync(RunOptions options, TextWriter output, CancellationToken cancellationToken)
    {
        using var data = new DataDirectory(options.DataDirectory);
        using var meters = new RunMeters();
        using var instruments = options.NoPersistence ? null : new StoreInstruments(meters);
        IGameStore store = options.NoPersistence
            ? new MemoryGameStore()
            : await StellarGameStore.OpenAsync(data.Path, options.Durability, meters).ConfigureAwait(false);
        var server = new TcpGameServer(store, new IPEndPoint(options.Bind, options.Port), options.IdleCollectBytes, options.SessionLease);
        try
        {
            server.Start();
            output.WriteLine($"listening on {server.EndPoint}");
            output.WriteLine($"state: {store.Description}{(options.NoPersistence ? "" : " at " + data.Describe())}; Ctrl+C stops");
            await StatusLine.RunAsync(server, options.NoPersistence ? null : data, instruments, options.Metrics, output, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            await server.StopAsync().ConfigureAwait(false);
            await store.DisposeAsync().ConfigureAwait(false);
        }

        var ticks = server.Ticks.Summarize();
        output.WriteLine($"stopped: {ticks.Ticks:N0} ticks, p50 {ticks.P50:N2} ms, p99 {ticks.P99:N2} ms, max {ticks.Max:N2} ms, over budget {ticks.OverBudget}; {server.Writes.Total:N0} writes");
        if (server.Tracker.Fault is { } fault)
        {
            output.WriteLine($"STORE FAULT: {fault.Message}");
            return 1;
        }

        return 0;
    }
}
