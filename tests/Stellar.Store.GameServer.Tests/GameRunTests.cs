using Stellar.Store.Samples.GameServer.Running;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>Short bot runs of the whole sample in this process, over loopback TCP.</summary>
public sealed class GameRunTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Run_With20BotsFor5Seconds_PassesVerificationAfterReopen()
    {
        var output = new StringWriter();
        var result = await GameRun.RunAsync(
            new RunOptions { Bots = 20, Duration = TimeSpan.FromSeconds(5), DataDirectory = _dir.Path },
            TextWriter.Synchronized(output),
            CancellationToken.None);

        Assert.True(result.Succeeded, output.ToString());
        Assert.NotNull(result.Reopened);
        Assert.Equal(20, result.Bots.LoggedIn);
        Assert.Equal(20, result.Bots.LoggedOut);
        Assert.Equal(20, result.Verification.Characters);
        Assert.Equal(20, result.Verification.Accounts);
        Assert.Equal(20, result.Reopened.Accounts);
        Assert.True(result.Live.Ok, string.Join("; ", result.Live.Failures));
        Assert.Equal((result.Live.TotalGold, result.Live.LedgerEntries), (result.Verification.TotalGold, result.Verification.LedgerEntries));

        // Trades happened, and every one acknowledged to a bot is in the reopened store (checked by the verifier).
        Assert.NotEmpty(result.Bots.AcknowledgedTrades);
        Assert.Equal(result.Bots.AcknowledgedTrades.Count, result.Verification.Trades);
        Assert.True(File.Exists(Path.Combine(_dir.Path, "MANIFEST")), "the given data directory is kept");
    }

    [Fact]
    public async Task Run_WithMetricsOnTheConsole_PrintsTheStoresInstrumentsForEveryCollectionItWroteTo()
    {
        var output = new StringWriter();
        var result = await GameRun.RunAsync(
            new RunOptions { Bots = 8, Duration = TimeSpan.FromSeconds(2), DataDirectory = _dir.Path, Metrics = MetricsExport.Console },
            TextWriter.Synchronized(output),
            CancellationToken.None);

        Assert.True(result.Succeeded, output.ToString());
        var printed = output.ToString();
        Assert.Contains("-- Stellar.Store metrics --", printed, StringComparison.Ordinal);

        // Every collection the reopened store holds records in was written to, and each shows its writes and bytes.
        var reopened = Assert.IsType<StoreVerification>(result.Reopened);
        Assert.True(reopened.Accounts > 0 && reopened.Positions > 0);
        foreach (var instrument in new[] { "stellar.store.writes{collection=accounts,kind=", "stellar.store.collection.stored_bytes{collection=accounts}", "stellar.store.commit.duration{collection=positions}" })
        {
            Assert.Contains(instrument, printed, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Run_WithoutMetrics_PrintsNoInstruments()
    {
        var output = new StringWriter();
        await GameRun.RunAsync(new RunOptions { Bots = 2, Duration = TimeSpan.FromSeconds(1), DataDirectory = _dir.Path }, TextWriter.Synchronized(output), CancellationToken.None);
        Assert.DoesNotContain("stellar.store.", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_AgainOnTheSameData_LogsTheSameCharactersBackIn()
    {
        var options = new RunOptions { Bots = 5, Duration = TimeSpan.FromSeconds(1), DataDirectory = _dir.Path };
        var first = await GameRun.RunAsync(options, TextWriter.Null, CancellationToken.None);
        var second = await GameRun.RunAsync(options, TextWriter.Null, CancellationToken.None);

        Assert.True(first.Succeeded);
        Assert.True(second.Succeeded);
        Assert.Equal((5, 5), (first.Bots.LoggedIn, first.Bots.CharactersCreated));
        Assert.Equal((5, 0), (second.Bots.LoggedIn, second.Bots.CharactersCreated));
        Assert.Equal(5, second.Verification.Characters);
    }

    [Fact]
    public async Task Run_WithoutPersistence_VerifiesInMemoryAndStoresNothing()
    {
        var data = Path.Combine(_dir.Path, "unused");
        var result = await GameRun.RunAsync(
            new RunOptions { Bots = 10, Duration = TimeSpan.FromSeconds(2), DataDirectory = data, NoPersistence = true },
            TextWriter.Null,
            CancellationToken.None);

        Assert.True(result.Succeeded);
        Assert.Null(result.Reopened);
        Assert.Equal(10, result.Verification.Characters);
        Assert.False(Directory.Exists(data));
    }

    [Fact]
    public async Task Run_WithTheStore_CountsEveryLiveRecordTheReopenedStoreHolds()
    {
        var result = await GameRun.RunAsync(
            new RunOptions { Bots = 8, Duration = TimeSpan.FromSeconds(2), DataDirectory = _dir.Path },
            TextWriter.Null,
            CancellationToken.None);

        // The summary's record count, taken from the open store, against the verifier's own read of the reopened one.
        Assert.True(result.Succeeded);
        var reopened = Assert.IsType<StoreVerification>(result.Reopened);
        var economy = reopened.Economy;
        Assert.Equal(reopened.Accounts + reopened.Positions + reopened.Scores + reopened.Chunks + economy.Characters + economy.Items + economy.LedgerEntries + economy.Trades + economy.Sessions, result.Memory.LiveRecords);
        Assert.True(result.Memory.ResidentBytes >= result.Memory.ManagedHeapBytes, "the resident set holds the managed heap");
    }

    [Fact]
    public async Task Compare_PlaysWithoutAndWithTheStore_PrintsBothRowsAndTheTickRatio()
    {
        var output = new StringWriter();
        var exit = await CompareMode.RunAsync(
            new RunOptions { Bots = 5, Duration = TimeSpan.FromSeconds(1) },
            TextWriter.Synchronized(output),
            CancellationToken.None);

        var text = output.ToString();
        Assert.True(exit == 0, text);
        Assert.Contains("in-memory dictionaries", text, StringComparison.Ordinal);
        Assert.Contains("Stellar.Store (WriteThrough", text, StringComparison.Ordinal);
        Assert.Matches(@"(?m)^no persistence +\d", text);
        Assert.Matches(@"(?m)^store \(WriteThrough\) +\d", text);
        Assert.Matches(@"tick p99 with the store / without: \d+\.\d\dx", text);
        Assert.Matches(@"tick p99 ratio over 1 pair\(s\): median \d+\.\d\dx, no interval", text);
    }

    [Fact]
    public void RatioLine_OfSixPairs_GivesTheMedianAndTheLowestAndHighestRatioAsTheInterval()
    {
        // Six ratios, worked out by hand: sorted 1.00 1.10 1.20 1.30 1.40 1.50, median (1.20 + 1.30) / 2.
        var line = CompareMode.RatioLine([1.5, 1.1, 1.3, 1.2, 1.4, 1.0]);

        Assert.StartsWith("tick p99 ratio over 6 pair(s): median 1.25x, 95% interval 1.00–1.50", line, StringComparison.Ordinal);
    }

    [Fact]
    public void RatioLine_OfFewerThanSixPairs_SaysThereIsNoInterval()
    {
        var line = CompareMode.RatioLine([2.0, 1.0, 3.0]);

        Assert.StartsWith("tick p99 ratio over 3 pair(s): median 2.00x, no interval", line, StringComparison.Ordinal);
    }
}
