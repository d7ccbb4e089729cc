using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Units;

/// <summary>How the units of one round are checked against each other, and parts that store nothing.</summary>
public sealed class UnitRoundTests : IDisposable
{
    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(1);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task WriteAsync_WhenOneCollectionsPartStoresNothing_CommitsTheUnitAndTheStoreGoesOn()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        try
        {
            var a = store.GetCollection<int, Account>("a", x => x.Id);
            var b = store.GetCollection<int, Account>("b", x => x.Id);

            // Deleting a missing key changes nothing, so b's part holds no record at all.
            await store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(1, 10));
                tx.In(b).Delete(99);
            }).WaitAsync(Hang);
            await store.WriteAsync(tx =>
            {
                tx.In(a).Insert(new Account(2, 20));
                tx.In(b).Insert(new Account(2, 20));
            }).WaitAsync(Hang);
            await b.InsertAsync(new Account(3, 30)).WaitAsync(Hang);

            Assert.Equal(10, a.Get(1)!.Gold);
            Assert.Equal(2, b.Count);
        }
        finally
        {
            // Bounded: a round that never ends would hold the dispose forever.
            await store.DisposeAsync().AsTask().WaitAsync(Hang);
        }

        await using (var reopened = await StellarStore.OpenAsync(_dir.Path))
        {
            var a = reopened.GetCollection<int, Account>("a", x => x.Id);
            var b = reopened.GetCollection<int, Account>("b", x => x.Id);
            Assert.Equal(new[] { 1, 2 }, a.Query().Select(x => x.Id).Order());
            Assert.Equal(new[] { 2, 3 }, b.Query().Select(x => x.Id).Order());
        }
    }
}
