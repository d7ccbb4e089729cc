using System.Globalization;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// What <see cref="Collection{TKey, TValue}.CompactAsync"/> documents for a compaction that fails cleanly before
/// its manifest swap (storage failing in the copy, an automatic run failing, a cancellation): the caller gets the
/// exception, and the collection is unchanged, keeps every value and takes writes. Judged against the test's own
/// copy of what was written. A failure at or after the swap is a different outcome (the store cannot know whether
/// the swap happened); the crash tests in <see cref="CompactionTests"/> cover it.
/// </summary>
public sealed class CompactionFailureTests(ITestOutputHelper output) : IDisposable
{
    private const int Keys = 1_500;
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options(double threshold = 0) => new()
    {
        Durability = Durability.Fsync,
        MaxShardBytes = 64 * 1024,
        CompactionThreshold = threshold,
    };

    private static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    /// <summary>Three rounds over every key and some deletes, so most bytes are dead; returns what should be there.</summary>
    private static async Task<Dictionary<int, Player>> FillAsync(Collection<int, Player> players, int rounds = 3)
    {
        var expected = new Dictionary<int, Player>();
        for (var round = 1; round <= rounds; round++)
        {
            for (var start = 0; start < Keys; start += 100)
            {
                var batch = Enumerable.Range(start, 100).Select(i => new Player(i, $"player-{i}-round-{round}", round, (long)i * round)).ToList();
                await players.WriteAsync(b => batch.ForEach(p => b.Upsert(p)));
                batch.ForEach(p => expected[p.Id] = p);
            }
        }

        for (var i = 0; i < Keys; i += 7)
        {
            await players.DeleteAsync(i);
            expected.Remove(i);
        }

        return expected;
    }

    private static void AssertHolds(Collection<int, Player> players, Dictionary<int, Player> expected, string context)
    {
        Assert.True(players.Count == expected.Count, $"{context}: {players.Count} records, {expected.Count} written");
        var all = players.Query().ToDictionary(p => p.Id);
        Assert.True(all.Count == expected.Count, $"{context}: Query returned {all.Count} records, {expected.Count} written");
        foreach (var (key, value) in expected)
        {
            Assert.True(players.Get(key) == value, $"{context}: Get({key}) is {players.Get(key)}, written {value}");
            Assert.True(all.GetValueOrDefault(key) == value, $"{context}: Query has {all.GetValueOrDefault(key)} for {key}, written {value}");
        }
    }

    /// <summary>Takes a write, checks it, closes, reopens and checks everything again, and that no compaction output is left.</summary>
    private static async Task AssertUsableAndDurableAsync(StellarStore store, string path, StoreOptions options, Dictionary<int, Player> expected, string context)
    {
        var players = Players(store);
        var after = new Player(1, "after the failed compaction", 9, 9);
        await players.UpsertAsync(after).WaitAsync(HangTimeout);
        expected[after.Id] = after;
        AssertHolds(players, expected, context + ", after a write");
        await store.DisposeAsync();

        await using var reopened = await StellarStore.OpenAsync(path, options);
        AssertHolds(Players(reopened), expected, context + ", after reopen");
        Assert.Empty(Directory.GetFiles(path, "*" + ".compacting"));
    }

    [Fact]
    public async Task CompactAsync_WhenStorageFailsBeforeTheManifestSwap_ThrowsIOExceptionAndTheCollectionKeepsEveryValueAndTakesWrites()
    {
        var template = _dir.Sub("template");
        Dictionary<int, Player> written;
        await using (var store = await StellarStore.OpenAsync(template, Options()))
        {
            written = await FillAsync(Players(store));
        }

        var faults = 0;
        var renamed = false;
        for (var k = 1; ; k++)
        {
            var path = _dir.Sub(string.Create(CultureInfo.InvariantCulture, $"fault-{k}"));
            CopyDirectory(template, path);
            var storage = new FaultInjectingStorage(new FileStorage(path));
            var store = await StellarStore.OpenAsync(storage, Options());
            var players = Players(store);
            storage.FailOperationAt = storage.OperationCount + k;
            var failure = await Record.ExceptionAsync(() => players.CompactAsync().WaitAsync(HangTimeout));
            storage.FailOperationAt = null;
            if (failure is null || failure.Message.Contains("ReplaceAtomically", StringComparison.Ordinal))
            {
                // A manifest replace (the one that reserves the output's shard id, or the swap itself) may fail
                // after its effect, so its outcome is not this test's; the compaction never meeting the fault
                // means the swap was passed.
                await Record.ExceptionAsync(() => store.DisposeAsync().AsTask());
                Assert.True(failure is not null, $"operation {k} of the compaction was never the manifest swap");
                if (renamed)
                {
                    break;
                }

                continue;
            }

            renamed |= failure.Message.Contains("Rename", StringComparison.Ordinal);
            faults++;
            var context = $"operation {k} failed ({failure.Message})";
            Assert.True(failure is IOException, $"{context}: {failure.GetType().Name}, not the documented IOException");
            AssertHolds(players, written, context);
            Assert.Equal(0, players.Statistics.Compactions);
            await AssertUsableAndDurableAsync(store, path, Options(), new Dictionary<int, Player>(written), context);
        }

        output.WriteLine($"{faults} storage operations before the manifest swap failed in turn");
        Assert.True(faults >= 4, $"only {faults} operations came before the swap: the copy phase is not exercised");
    }

    [Fact]
    public async Task AutomaticCompaction_WhenStorageFails_ReportsLastCompactionErrorAndTheCollectionKeepsEveryValueAndTakesWrites()
    {
        var path = _dir.Sub("store");
        var options = Options(threshold: 0.5);
        var storage = new FaultInjectingStorage(new FileStorage(path));

        // Only a compaction renames (its finished output into place), so the first rename is a compaction's.
        storage.FailRenameAt = 1;
        var store = await StellarStore.OpenAsync(storage, options);
        var players = Players(store);
        var written = new Dictionary<int, Player>();
        for (var round = 1; round <= 20 && storage.RenameCount == 0; round++)
        {
            foreach (var (key, value) in await FillAsync(players, rounds: 1))
            {
                written[key] = value;
            }

            written = written.Where(w => w.Key % 7 != 0).ToDictionary();
        }

        Assert.True(storage.RenameCount > 0, "no automatic compaction started");
        var deadline = DateTime.UtcNow + HangTimeout;
        while (players.Statistics.LastCompactionError is null && DateTime.UtcNow < deadline)
        {
            await Task.Delay(20);
        }

        var error = players.Statistics.LastCompactionError;
        Assert.True(error is IOException, $"LastCompactionError is {error?.GetType().Name ?? "null"}, not the IOException the rename threw");
        Assert.Contains("Rename", error!.Message, StringComparison.Ordinal);
        AssertHolds(players, written, "after the failed automatic compaction");
        await AssertUsableAndDurableAsync(store, path, options, written, "after the failed automatic compaction");
    }

    [Fact]
    public async Task CompactAsync_WhenCancelledDuringTheCopy_ThrowsOperationCanceledAndLeavesTheCollectionAndItsFilesAsTheyWere()
    {
        var path = _dir.Sub("store");
        Dictionary<int, Player> written;
        await using (var store = await StellarStore.OpenAsync(path, Options()))
        {
            written = await FillAsync(Players(store));
        }

        var before = Directory.GetFiles(path, "*.shard").Select(Path.GetFileName).Order(StringComparer.Ordinal).ToList();
        using var cancel = new CancellationTokenSource();
        var cancelling = await StellarStore.OpenAsync(new CancellingStorage(new FileStorage(path), cancel), Options());
        var players = Players(cancelling);
        var failure = await Record.ExceptionAsync(() => players.CompactAsync(cancel.Token).WaitAsync(HangTimeout));

        Assert.True(cancel.IsCancellationRequested, "the compaction never opened an output file");
        Assert.True(failure is OperationCanceledException, $"{failure?.GetType().Name ?? "no exception"}, not OperationCanceledException");
        AssertHolds(players, written, "after the cancelled compaction");
        await AssertUsableAndDurableAsync(cancelling, path, Options(), written, "after the cancelled compaction");
        Assert.Equal(before, Directory.GetFiles(path, "*.shard").Select(Path.GetFileName).Order(StringComparer.Ordinal).Where(before.Contains));
        Assert.DoesNotContain(Directory.GetFiles(path), f => f.Contains(".compacting", StringComparison.Ordinal));
    }

    private static void CopyDirectory(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from))
        {
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        }
    }
}
