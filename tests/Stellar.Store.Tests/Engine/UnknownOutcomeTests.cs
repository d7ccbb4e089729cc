using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// A storage call that fails after it took effect (the manifest was renamed into place, then the directory fsync
/// failed) leaves an outcome the store cannot know. Such a call is never undone as if it had failed cleanly: the
/// collection faults, both file sets stay, and the next open finds every acknowledged record whichever manifest is
/// on disk. Real files throughout; the fault is injected around them.
/// </summary>
public sealed class UnknownOutcomeTests : IDisposable
{
    private const int Keys = 2_000;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    private static StoreOptions Options => new() { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };

    /// <summary>
    /// The reported scenario: the compaction's manifest swap reaches the disk but reports a failure. Both manifest
    /// replaces of a compaction are tried (the one that reserves output ids, and the swap).
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task CompactAsync_WhenAManifestReplaceFailsAfterTheRename_FaultsTheCollectionAndReopenHoldsEveryRecord(int replace)
    {
        var expected = new Dictionary<int, string>();
        var faults = new FaultInjectingStorage(new FileStorage(_dir.Path)) { Timing = FaultTiming.AfterEffect };
        var store = await StellarStore.OpenAsync(faults, Options);
        try
        {
            var players = Players(store);
            for (var round = 1; round <= 3; round++)
            {
                for (var i = 0; i < Keys; i += 250)
                {
                    await players.WriteAsync(b =>
                    {
                        for (var k = i; k < i + 250; k++)
                        {
                            b.Upsert(new Player(k, $"player-{k}-round-{round}", round, k));
                            expected[k] = $"player-{k}-round-{round}";
                        }
                    });
                }
            }

            faults.FailReplaceAt = faults.ReplaceCount + replace;
            var failure = await Record.ExceptionAsync(() => players.CompactAsync());

            Assert.Equal(1, faults.FaultsAfterEffect);
            Assert.IsType<StoreFaultedException>(failure);
            await Assert.ThrowsAsync<StoreFaultedException>(() => players.UpsertAsync(new Player(1, "refused", 0, 0)));

            // The faulted collection still shows every acknowledged record.
            Assert.Equal(Keys, players.Count);
            Assert.All(expected, e => Assert.Equal(e.Value, players.Get(e.Key)?.Name));
        }
        finally
        {
            await store.DisposeAsync();
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, Options);
        var again = Players(reopened);
        Assert.Equal(Keys, again.Count);
        Assert.All(expected, e => Assert.Equal(e.Value, again.Get(e.Key)?.Name));

        // And it takes writes again.
        await again.UpsertAsync(new Player(1, "after reopen", 0, 0));
        Assert.Equal("after reopen", again.Get(1)?.Name);
    }
}
