using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Running;

namespace Stellar.Store.GameServer.Tests;

/// <summary>A save of the older layout (one <c>economy</c> collection) is refused with a clear message and left as it was.</summary>
public sealed class OlderLayoutTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Verify_OfASaveOfTheOlderLayout_SaysSoAndLeavesItsRecords()
    {
        await WriteOlderLayoutAsync();
        var output = new StringWriter();

        var exit = await VerifyMode.RunAsync(_dir.Path, output);

        Assert.Equal(2, exit);
        Assert.Contains("was written by an older layout of this sample", output.ToString(), StringComparison.Ordinal);
        await AssertOlderRecordsAreIntactAsync();
    }

    [Fact]
    public async Task Run_OnASaveOfTheOlderLayout_ThrowsOlderLayoutAndLeavesItsRecords()
    {
        await WriteOlderLayoutAsync();

        var e = await Assert.ThrowsAsync<OlderLayoutException>(() => GameRun.RunAsync(
            new RunOptions { Bots = 1, Duration = TimeSpan.FromSeconds(1), DataDirectory = _dir.Path }, TextWriter.Null, CancellationToken.None));

        Assert.Contains("'economy' collection", e.Message, StringComparison.Ordinal);
        await AssertOlderRecordsAreIntactAsync();
    }

    private async Task WriteOlderLayoutAsync()
    {
        // What the older sample kept: the same accounts, and every other economy record in one collection (its types
        // are not this test's business: the layout shows in the accounts without characters).
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        await store.GetCollection<string, AccountRecord>("accounts", a => a.Name).InsertAsync(new AccountRecord("old", 1, 3, DateTime.UnixEpoch));
        await store.GetCollection<long, string>("economy", s => s.Length).InsertAsync("character");
    }

    private async Task AssertOlderRecordsAreIntactAsync()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        Assert.Equal(3, store.GetCollection<string, AccountRecord>("accounts", a => a.Name).Get("old")!.Logins);
        Assert.Equal("character", store.GetCollection<long, string>("economy", s => s.Length).Get(9));
    }
}
