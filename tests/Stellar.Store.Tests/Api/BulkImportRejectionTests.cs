using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Api;

/// <summary>
/// Bulk import whose block the writer rejects (a unique index key already held): the import fails with the rejection,
/// and what stays is a prefix of the source, now and after a reopen; no block queued behind the rejected one is kept.
/// </summary>
public sealed class BulkImportRejectionTests
{
    private const int SourceRecords = 200_000;
    private const int TakenKey = -1;
    private const string TakenName = "taken";

    private static IEnumerable<Player> Source(int badAt)
    {
        for (var i = 0; i < SourceRecords; i++)
        {
            yield return new Player(i, i == badAt ? TakenName : "p" + i, i & 63, i);
        }
    }

    [Theory]
    [InlineData(20_000)]
    [InlineData(100_000)]
    public async Task BulkImport_WhenABlockBreaksAUniqueIndex_FailsAndKeepsOnlyAPrefixOfTheSource(int badAt)
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var players = Open(store);
            await players.InsertAsync(new Player(TakenKey, TakenName, 1, 1));

            var thrown = await Assert.ThrowsAsync<UniqueConstraintException>(() => players.BulkImportAsync(Source(badAt)));

            Assert.Equal(badAt, (int)thrown.Key);
            AssertPrefixBelow(players, badAt);
            await players.InsertAsync(new Player(SourceRecords, "later", 1, 1)); // the collection still works
        }

        await using var reopened = await StellarStore.OpenAsync(storage);
        var again = Open(reopened);
        AssertPrefixBelow(again, badAt);
        Assert.Equal("later", again.Get(SourceRecords)!.Name);
    }

    private static Collection<int, Player> Open(StellarStore store)
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        players.Index("by-name", p => p.Name, unique: true);
        return players;
    }

    /// <summary>
    /// The test's own account of a prefix: the imported ids held are exactly 0..n-1 for some n at most
    /// <paramref name="limit"/>, each with the source's value, beside the record the import collided with.
    /// </summary>
    private static void AssertPrefixBelow(Collection<int, Player> players, int limit)
    {
        Assert.Equal(new Player(TakenKey, TakenName, 1, 1), players.Get(TakenKey));
        var imported = players.Query(p => p.Id >= 0 && p.Id < SourceRecords).Select(p => p.Id).OrderBy(id => id).ToList();
        var n = imported.Count;
        Assert.InRange(n, 0, limit);
        Assert.True(n == 0 || imported[^1] == n - 1, $"the import kept {n} records, the highest id {(n == 0 ? -1 : imported[^1])}: not a prefix of the source");
        foreach (var id in imported)
        {
            Assert.Equal(new Player(id, "p" + id, id & 63, id), players.Get(id));
        }
    }
}
