using Stellar.Store.Format;
using Stellar.Store.Indexes;
using Stellar.Store.Testing;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// The order a one-key index keeps at a clean close, which the next build takes instead of sorting when it still agrees
/// with the records: every answer is checked against the test's own model of the records, whether the build took the
/// order or not, and a stale, changed, damaged or crafted order is never trusted. The indexes by name (a string) and by
/// level and name (a tuple) keep orders; the index by gold (a number, which sorts by its bits) keeps none.
/// </summary>
public sealed class IndexOrderTests : IDisposable
{
    private const int Records = 3_000;

    /// <summary>A record deleted after the import: its key has a deletion as its newest version.</summary>
    private const int Deleted = 77;
    private readonly TempDirectory _dir = new();
    private readonly Random _random = new(4242);
    private readonly Dictionary<int, Player> _model = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Reopen_AfterACleanClose_BuildsFromTheSavedOrderAndAnswersAsTheModel()
    {
        await Fill();
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        Assert.Empty(store.Recovery.IgnoredFiles);
        var (byGold, byName, byLevel) = await Declare(store);
        Assert.True(SavedOrderUsed(byName));
        Assert.True(SavedOrderUsed(byLevel));
        Assert.False(SavedOrderUsed(byGold));
        Assert.False(File.Exists(Path.Combine(_dir.Path, StoreFileNames.IndexOrder(1, "by-gold"))));
        Check(byGold, byName, byLevel);

        // Kept from the run it was built into: moves, deletes and inserts after the build.
        await Churn(store);
        Check(byGold, byName, byLevel);
    }

    [Fact]
    public async Task Reopen_AfterWritesTheIndexDidNotSee_SortsInsteadAndAnswersAsTheModel()
    {
        await Fill();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            // The orders on disk are now older than the records.
            await Churn(store);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var (byGold, byName, byLevel) = await Declare(reopened);
        Assert.False(SavedOrderUsed(byName));
        Assert.False(SavedOrderUsed(byLevel));
        Check(byGold, byName, byLevel);
    }

    [Fact]
    public async Task Declare_AfterADeleteAndAnInsertSinceTheClose_SortsInsteadAndAnswersAsTheModel()
    {
        await Fill();
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);

        // As many records as the saved order names, but one of them deleted (its deletion still held for the snapshot).
        using var before = players.Snapshot();
        var gone = _model.Keys.First();
        await players.DeleteAsync(gone);
        _model.Remove(gone);
        var added = NewPlayer(Records + 1);
        await players.InsertAsync(added);
        _model[added.Id] = added;
        var (byGold, byName, byLevel) = await Declare(store);
        Assert.False(SavedOrderUsed(byName));
        Assert.False(SavedOrderUsed(byLevel));
        Check(byGold, byName, byLevel);
    }

    [Fact]
    public async Task Reopen_WithAnotherKeySelectorUnderTheSameName_SortsInsteadAndAnswersByTheNewKey()
    {
        await Fill();
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => new string(p.Name.Reverse().ToArray()));
        await byName.Ready;
        Assert.False(SavedOrderUsed(byName));
        Assert.Equal(
            _model.Values.OrderBy(p => new string(p.Name.Reverse().ToArray()), StringComparer.Ordinal).ThenBy(p => p.Id).Select(p => p.Id),
            byName.All().Select(p => p.Id));
    }

    [Theory]
    [InlineData("garbage")]
    [InlineData("truncated")]
    [InlineData("trailing")]
    [InlineData("swapped")]
    [InlineData("duplicated")]
    [InlineData("unknown-key")]
    [InlineData("deleted-key")]
    [InlineData("other-name")]
    public async Task Reopen_WithADamagedOrCraftedOrder_SortsInsteadAndAnswersAsTheModel(string damage)
    {
        await Fill();
        var file = Path.Combine(_dir.Path, StoreFileNames.IndexOrder(1, "by-name"));
        var ids = ByName().Select(p => p.Id).ToArray();
        switch (damage)
        {
            case "garbage":
                File.WriteAllBytes(file, Enumerable.Range(0, 5_000).Select(i => (byte)(i * 31)).ToArray());
                break;
            case "truncated":
                File.WriteAllBytes(file, File.ReadAllBytes(file)[..^3]);
                break;
            case "trailing":
                File.WriteAllBytes(file, [.. File.ReadAllBytes(file), 0x01]);
                break;
            case "swapped":
                (ids[10], ids[2_000]) = (ids[2_000], ids[10]);
                Craft(file, "by-name", ids);
                break;
            case "duplicated":
                ids[1] = ids[0];
                Craft(file, "by-name", ids);
                break;
            case "unknown-key":
                ids[^1] = int.MaxValue;
                Craft(file, "by-name", ids);
                break;
            case "deleted-key":
                ids[^1] = Deleted;
                Craft(file, "by-name", ids);
                break;
            default:
                Craft(file, "by-level", ids);
                break;
        }

        // A file the test crafted with the true order is trusted: the crafting is right, so the cases above test the damage.
        var control = Path.Combine(_dir.Path, StoreFileNames.IndexOrder(1, "by-level"));
        Craft(control, "by-level", ByLevel().Select(p => p.Id).ToArray());
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var (byGold, byName, byLevel) = await Declare(store);
        Assert.False(SavedOrderUsed(byName));
        Assert.True(SavedOrderUsed(byLevel));
        Check(byGold, byName, byLevel);
    }

    [Fact]
    public async Task Reopen_WithAnOrderHoldingAKeyTheKeyTypeRefuses_SortsInsteadAndAnswersAsTheModel()
    {
        // A key type may throw its own exception for a value it refuses: an order that holds one is damaged like any other.
        var badges = Enumerable.Range(0, 500).Select(i => new Badge(new BadgeId(i), "b" + (i * 7 % 500))).ToList();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var collection = store.GetCollection<BadgeId, Badge>("badges", b => b.Id);
            await collection.BulkImportAsync(badges);
            await collection.Index("by-name", b => b.Name).Ready;
        }

        var file = Path.Combine(_dir.Path, StoreFileNames.IndexOrder(1, "by-name"));
        Assert.True(File.Exists(file));
        var inOrder = badges.OrderBy(b => b.Name, StringComparer.Ordinal).ThenBy(b => b.Id.Value).ToList();

        // The order crafted right is trusted, so the crafting is right; the same order with one refused key is not.
        foreach (var refused in new[] { false, true })
        {
            // A badge's key is written as an array of its one value.
            Craft(file, "by-name", inOrder.Select((b, i) => new[] { refused && i == 250 ? -1 : b.Id.Value }).ToArray());

            await using var reopened = await StellarStore.OpenAsync(_dir.Path);
            var byName = reopened.GetCollection<BadgeId, Badge>("badges", b => b.Id).Index("by-name", b => b.Name);
            await byName.Ready;
            Assert.Equal(!refused, ((SecondaryIndex<string, BadgeId, Badge>)byName.Index).BuiltFromSavedOrder);
            Assert.Equal(inOrder.Select(b => b.Id), byName.All().Select(b => b.Id));
        }
    }

    [Theory]
    [InlineData(FaultTiming.BeforeEffect)]
    [InlineData(FaultTiming.AfterEffect)]
    public async Task Close_WhenTheOrderCannotBeWritten_StillClosesAndTheNextOpenAnswersAsTheModel(FaultTiming timing)
    {
        var memory = new MemoryStorage();
        var faults = new FaultInjectingStorage(memory) { Timing = timing };
        await using (var store = await faults.OpenStoreAsync())
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var all = Enumerable.Range(0, Records).Select(NewPlayer).ToList();
            await players.BulkImportAsync(all);
            all.ForEach(p => _model[p.Id] = p);
            await Declare(store);

            // The next replace fails: the first order the close writes.
            faults.FailReplaceAt = faults.ReplaceCount + 1;
        }

        Assert.True(faults.FaultCount > 0);
        faults.FailReplaceAt = null;
        await using var reopened = await faults.OpenStoreAsync();
        var (byGold, byName, byLevel) = await Declare(reopened);
        Check(byGold, byName, byLevel);
    }

    [Fact]
    public async Task Close_OfAnEncryptedStore_KeepsNoOrder()
    {
        var options = new StoreOptions { EncryptionKey = Enumerable.Range(0, 32).Select(i => (byte)(i * 5)).ToArray() };
        await Fill(options);
        Assert.DoesNotContain(Directory.GetFiles(_dir.Path), f => f.EndsWith(StoreFileNames.IndexOrderExtension, StringComparison.Ordinal));
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var (byGold, byName, byLevel) = await Declare(store);
        Assert.False(SavedOrderUsed(byName));
        Check(byGold, byName, byLevel);
    }

    private static bool SavedOrderUsed<TIndexKey>(CollectionIndex<TIndexKey, int, Player> index) =>
        ((SecondaryIndex<TIndexKey, int, Player>)index.Index).BuiltFromSavedOrder;

    /// <summary>An order file as the format describes it, written by the test itself, each key as MessagePack writes it.</summary>
    private static void Craft<TKey>(string file, string indexName, TKey[] ids)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        var writer = new MessagePack.MessagePackWriter(buffer);
        writer.WriteArrayHeader(4 + ids.Length);
        writer.Write("stellar-index-order");
        writer.Write(1);
        writer.Write(indexName);
        writer.Write((long)ids.Length);
        foreach (var id in ids)
        {
            MessagePack.MessagePackSerializer.Serialize(ref writer, id);
        }

        writer.Flush();
        File.WriteAllBytes(file, buffer.WrittenSpan.ToArray());
    }

    private static async Task<(CollectionIndex<long, int, Player>, CollectionIndex<string, int, Player>, CollectionIndex<(int, string), int, Player>)> Declare(StellarStore store)
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byGold = players.Index("by-gold", p => p.Gold);
        var byName = players.Index("by-name", p => p.Name);
        var byLevel = players.Index("by-level", p => (p.Level, p.Name));
        await Task.WhenAll(byGold.Ready, byName.Ready, byLevel.Ready);
        return (byGold, byName, byLevel);
    }

    /// <summary>A store of <see cref="Records"/> players, closed with both indexes declared, so that it keeps their orders.</summary>
    private async Task Fill(StoreOptions? options = null)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, options);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var all = Enumerable.Range(0, Records).Select(NewPlayer).ToList();
        await players.BulkImportAsync(all);
        foreach (var player in all)
        {
            _model[player.Id] = player;
        }

        await players.DeleteAsync(Deleted);
        _model.Remove(Deleted);

        await Declare(store);
    }

    private async Task Churn(StellarStore store)
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        for (var step = 0; step < 300; step++)
        {
            var id = _random.Next(Records + 100);
            if (_random.Next(4) == 0)
            {
                await players.DeleteAsync(id);
                _model.Remove(id);
            }
            else
            {
                var player = NewPlayer(id);
                await players.UpsertAsync(player);
                _model[id] = player;
            }
        }
    }

    private Player NewPlayer(int id) => new(id, "p" + _random.Next(500), _random.Next(50), _random.Next(200));

    private IEnumerable<Player> ByName() => _model.Values.OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id);

    private IEnumerable<Player> ByLevel() => _model.Values.OrderBy(p => p.Level).ThenBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id);

    private void Check(CollectionIndex<long, int, Player> byGold, CollectionIndex<string, int, Player> byName, CollectionIndex<(int, string), int, Player> byLevel)
    {
        var gold = _model.Values.OrderBy(p => p.Gold).ThenBy(p => p.Id).ToList();
        Assert.Equal(gold.Select(p => p.Id), byGold.All().Select(p => p.Id));
        Assert.Equal(gold.AsEnumerable().Reverse().Take(50).Select(p => p.Id), byGold.Top(50).Select(p => p.Id));
        Assert.Equal(gold.Where(p => p.Gold is >= 20 and <= 40).Select(p => p.Id), byGold.Range(20, 40).Select(p => p.Id));
        Assert.Equal(ByName().Select(p => p.Id), byName.All().Select(p => p.Id));
        Assert.Equal(ByLevel().Select(p => p.Id), byLevel.All().Select(p => p.Id));
        Assert.Equal(_model.Values.Where(p => p.Name.StartsWith("p1", StringComparison.Ordinal)).OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id).Select(p => p.Id), byName.Prefix("p1").Select(p => p.Id));
    }
}
