using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// In Buffered mode a feed may find the committed end beyond what reached the OS: it hands that to the OS and reads
/// on, and still delivers each unit whole, whatever shards the unit's blocks lie in.
/// </summary>
public sealed class ChangeFeedBufferedUnitTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Changes_APartAcrossShardsBeforeAWriteNotYetHandedToTheOs_EndsItsUnitOnlyAtItsLastChange()
    {
        const int PartRecords = 20_000;
        var options = new StoreOptions { Durability = Durability.Buffered, CompactionThreshold = 0, MaxShardBytes = 64 * 1024 };
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var a = store.GetCollection<int, Account>("a", x => x.Id);
        var b = store.GetCollection<int, Account>("b", x => x.Id);
        await a.UpsertAsync(new Account(-1, 0));

        // A part of several blocks, which rolls over shards, then a small write that stays in the writer's buffer.
        await store.WriteAsync(tx =>
        {
            for (var i = 0; i < PartRecords; i++)
            {
                tx.In(a).Upsert(new Account(i, i));
            }

            tx.In(b).Upsert(new Account(1, 1));
        });
        await a.UpsertAsync(new Account(-2, 0));

        var changes = await FeedReading.ReadToEndAsync(a, ChangePosition.Start);

        Assert.Equal(PartRecords + 2, changes.Count);
        Assert.Equal(new[] { 0, PartRecords, PartRecords + 1 }, changes.Select((c, i) => (c, i)).Where(p => p.c.EndsUnit).Select(p => p.i));
    }
}
