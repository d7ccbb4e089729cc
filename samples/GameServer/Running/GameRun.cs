using System.Diagnostics;
using System.Net;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Server;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// The default run: a server and N bots in this process over loopback TCP for a while, a status line a second,
/// then the server stops, the store is closed, reopened and verified, and a summary is printed.
/// </summary>
internal static class GameRun
{
    public static async Task<RunResult> RunAsync(RunOptions options, TextWriter output, CancellationToken cancellationToken)
    {
        using var data = new DataDirectory(options.DataDirectory);
        var storeDirectory = options.NoPersistence ? null : data;
        using var meters = new RunMeters();
        using var instruments = options.NoPersistence ? null : new StoreInstruments(meters);
        IGameStore store = options.NoPersistence
            ? new MemoryGameStore()
            : await StellarGameStore.OpenAsync(data.Path, options.Durability, meters).ConfigureAwait(false);
        output.WriteLine($"state: {store.Description}{(storeDirectory is null ? "" : " at " + data.Describe())}");

        var server = new TcpGameServer(store, new IPEndPoint(options.Bind, options.Port), options.IdleCollectBytes, options.SessionLease);
        BotReport bots;
        TimeSpan played;
        MemoryReport memoryReport;
        VerificationResult live;
        IReadOnlyList<(CheckpointInfo Info, TimeSpan Took)> checkpoints;
        var gc = MemoryReport.Start();
        try
        {
            server.Start();
            output.WriteLine($"listening on {server.EndPoint}; {options.Bots} bots play for {options.Duration.TotalSeconds:N0} s");
            using var stopStatus = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            var status = StatusLine.RunAsync(server, storeDirectory, instruments, options.Metrics, output, stopStatus.Token);
            var checkpointing = options.CheckpointEvery is { } every && store is StellarGameStore stellar
                ? CheckpointLoop.RunAsync(stellar, every, server.RunId, stopStatus.Token)
                : null;
            bots = new BotReport();
            var clock = Stopwatch.StartNew();
            await BotDriver.RunAsync(server.EndPoint, options.Bots, options.Duration, bots, cancellationToken).ConfigureAwait(false);
            played = clock.Elapsed;
            await stopStatus.CancelAsync().ConfigureAwait(false);
            await status.ConfigureAwait(false);
            checkpoints = checkpointing is null ? [] : await checkpointing.ConfigureAwait(false);
        }
        catch
        {
            await server.StopAsync().ConfigureAwait(false);
            await store.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        await server.StopAsync().ConfigureAwait(false);
        try
        {
            // Measured with the server stopped, so the full collection it forces delays no tick, and with the store
            // still open, so its records are in the heap.
            memoryReport = MemoryReport.Measure(gc, store.LiveRecords);

            // The live state first, through one consistent cut of the open store; then, below, as a reopen recovers it.
            // Shutdown logged out every player still online, so no session of this run may be left.
            live = store.Verify(bots.AcknowledgedTrades, server.RunId);
        }
        finally
        {
            await store.DisposeAsync().ConfigureAwait(false);
        }

        var sizeOnDisk = storeDirectory?.SizeOnDisk() ?? 0;
        var files = storeDirectory?.FileCount() ?? 0;
        StoreVerification? reopened = null;
        var verification = live;
        if (storeDirectory is not null)
        {
            reopened = await StoreVerifier.VerifyAsync(data.Path, bots.AcknowledgedTrades, server.RunId).ConfigureAwait(false);
            verification = reopened.Economy;
        }

        // The newest checkpoint holds one consistent cut of the game taken while it ran: the same invariants hold in it.
        var checkpoint = checkpoints.Count == 0 ? null : await StoreVerifier.VerifyCheckpointAsync(checkpoints[^1].Info.Path).ConfigureAwait(false);
        var result = new RunResult(bots, played, server.Ticks.Summarize(), server.Tracker.Fault, live, verification, reopened, memoryReport) { Checkpoint = checkpoint?.Economy };
        Summary.Print(output, options, store.Description, result, server.Writes, sizeOnDisk, files);
        if (options.CheckpointEvery is { } interval)
        {
            CheckpointLoop.Print(output, interval, checkpoints);
            if (checkpoint is not null)
            {
                output.WriteLine($"  checkpoint {checkpoints[^1].Info.Name}: {(checkpoint.Economy.Ok ? "verification OK" : $"verification FAILED ({checkpoint.Economy.FailureCount} problems)")}");
            }
        }

        return result;
    }
}
