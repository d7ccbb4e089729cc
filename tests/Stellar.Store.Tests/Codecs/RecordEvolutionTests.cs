extern alias v1;
using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Codecs.Evolution;
using V1 = v1::Stellar.Store.Tests.Codecs.Evolution;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// A game's record types change between its versions. Version 1 of each type lives in Stellar.Store.Tests.RecordsV1
/// and version 2 here, under the same full name, as one type looks before and after an update: a store written
/// with one version opens and reads with the other, in both directions (an update, and a rollback).
/// docs/evolving-records.md states the rules these tests prove.
/// </summary>
public sealed class RecordEvolutionTests
{
    [Fact]
    public async Task PlainClass_WrittenAsV1ReadAsV2_DropsRemovedMembersAndKeepsInitializersOfAddedOnes()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, V1.Hero>("heroes", h => h.Id);
            await heroes.InsertAsync(new V1.Hero { Id = "ada", Level = 7, Title = "the Brave" });
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, Hero>("heroes", h => h.Id);
            var ada = heroes.Get("ada")!;
            Assert.Equal(7, ada.Level);
            Assert.Equal(100, ada.Gold); // missing from the data: the initializer's value stays
            Assert.Equal(["newcomer"], ada.Badges);

            ada.Gold = 250;
            await heroes.UpsertAsync(ada);
            await heroes.InsertAsync(new Hero { Id = "bo", Level = 2, Gold = 5, Badges = ["first"] });
        }

        // A rollback to version 1 reads what version 2 wrote: unknown members are skipped, missing ones default.
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, V1.Hero>("heroes", h => h.Id);
            var ada = heroes.Get("ada")!;
            Assert.Equal(7, ada.Level);
            Assert.Equal("", ada.Title);
            Assert.Equal(2, heroes.Get("bo")!.Level);
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, Hero>("heroes", h => h.Id);
            Assert.Equal(250, heroes.Get("ada")!.Gold);
            Assert.Equal(["first"], heroes.Get("bo")!.Badges);
        }
    }

    [Fact]
    public async Task PlainRecord_AcrossVersionsBothWays_PassesDefaultsForMissingConstructorParameters()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            await store.GetCollection<int, V1.Quest>("quests", q => q.Id).InsertAsync(new V1.Quest(1, "Rats", "Innkeeper"));
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var quests = store.GetCollection<int, Quest>("quests", q => q.Id);
            Assert.Equal(new Quest(1, "Rats", 0), quests.Get(1));
            await quests.InsertAsync(new Quest(2, "Wolves", 3));
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var quests = store.GetCollection<int, V1.Quest>("quests", q => q.Id);
            Assert.Equal(new V1.Quest(1, "Rats", "Innkeeper"), quests.Get(1));
            Assert.Equal(new V1.Quest(2, "Wolves", null!), quests.Get(2));
        }
    }

    [Fact]
    public async Task AttributedClass_WrittenAsV1ReadAsV2_SkipsTheRetiredKeyAndKeepsInitializersOfNewKeys()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var guilds = store.GetCollection<int, V1.Guild>("guilds", g => g.Id);
            await guilds.InsertAsync(new V1.Guild { Id = 1, Name = "Dawn", Motto = "Rise" });
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var guilds = store.GetCollection<int, Guild>("guilds", g => g.Id);
            var dawn = guilds.Get(1)!;
            Assert.Equal("Dawn", dawn.Name);
            Assert.Equal(1, dawn.Rank);
            await guilds.InsertAsync(new Guild { Id = 2, Name = "Dusk", Rank = 9 });
        }

        // A rollback to version 1: version 2 writes the retired key 2 as nil, which a reference type reads as null.
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var guilds = store.GetCollection<int, V1.Guild>("guilds", g => g.Id);
            Assert.Equal("Rise", guilds.Get(1)!.Motto); // never rewritten by version 2
            Assert.Equal("Dusk", guilds.Get(2)!.Name);
            Assert.Null(guilds.Get(2)!.Motto);
        }
    }

    [Fact]
    public async Task AttributedClassKeyedByName_AcrossVersionsBothWays_RoundTrips()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            await store.GetCollection<int, V1.Mount>("mounts", m => m.Id).InsertAsync(new V1.Mount { Id = 1, Name = "Storm", Age = 4 });
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var mounts = store.GetCollection<int, Mount>("mounts", m => m.Id);
            var storm = mounts.Get(1)!;
            Assert.Equal(("Storm", 10), (storm.Name, storm.Speed));
            await mounts.InsertAsync(new Mount { Id = 2, Name = "Ash", Speed = 30 });
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var mounts = store.GetCollection<int, V1.Mount>("mounts", m => m.Id);
            Assert.Equal(("Storm", 4), (mounts.Get(1)!.Name, mounts.Get(1)!.Age));
            Assert.Equal(("Ash", 0), (mounts.Get(2)!.Name, mounts.Get(2)!.Age));
        }
    }

    [Fact]
    public async Task AttributedRecord_WrittenAsV1ReadAsV2_PassesDefaultsForNewConstructorParameters()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { Compression = Compression.Lz4 }))
        {
            var items = store.GetCollection<int, V1.Item>("items", i => i.Id);
            await items.BulkImportAsync(Enumerable.Range(0, 1_000).Select(i => new V1.Item(i, $"item{i}", i % 9)));
        }

        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { Compression = Compression.Lz4 }))
        {
            var items = store.GetCollection<int, Item>("items", i => i.Id);
            Assert.Equal(1_000L, items.Count);
            Assert.Equal(new Item(5, "item5", 0), items.Get(5));
            await items.UpsertAsync(new Item(5, "item5", 4));
        }

        // No rollback: version 2 writes the retired key 2 as nil, which version 1's int Weight cannot read. The
        // collection refuses to load, naming the block, rather than inventing a value.
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { Compression = Compression.Lz4 }))
        {
            var e = Assert.Throws<CorruptBlockException>(() => store.GetCollection<int, V1.Item>("items", i => i.Id));
            Assert.Contains("does not decode", e.Message, StringComparison.Ordinal);

            // The refusal changed nothing: version 2 still reads the collection.
            Assert.Equal(new Item(5, "item5", 4), store.GetCollection<int, Item>("items", i => i.Id).Get(5));
        }
    }

    /// <summary>
    /// A generic key or value type names its type arguments' assemblies (and their versions) in its full name, so
    /// comparing full names would refuse a collection after the game moved a type or bumped its assembly version,
    /// or after a .NET update (System.Private.CoreLib's version is in every value tuple's full name).
    /// </summary>
    [Fact]
    public async Task GenericKey_WhoseArgumentMovedToAnotherAssembly_StillOpens()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var places = store.GetCollection<(V1.Realm Realm, int Id), Place>("places", p => ((V1.Realm)p.Realm, p.Id));
            await places.InsertAsync(new Place(2, 7, "harbour"));
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var places = store.GetCollection<(Realm Realm, int Id), Place>("places", p => ((Realm)p.Realm, p.Id));
            Assert.Equal("harbour", places.Get((Realm.South, 7))!.Name);
            await places.InsertAsync(new Place(3, 1, "cliffs"));
            Assert.Equal(2L, places.Count);
        }
    }

    [Fact]
    public async Task Manifest_TypeNames_NameNoAssemblyOrVersion()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            store.GetCollection<(int X, int Y), Dictionary<string, Hero>>("maps", _ => (0, 0));
        }

        var maps = Manifest.Parse(storage.ReadAllBytes(StoreFileNames.Manifest), StoreFileNames.Manifest).Collections.Single();
        Assert.Equal("System.ValueTuple`2[System.Int32,System.Int32]", maps.KeyType);
        Assert.Equal("System.Collections.Generic.Dictionary`2[System.String,Stellar.Store.Tests.Codecs.Evolution.Hero]", maps.ValueType);
    }

    [Fact]
    public async Task GetCollection_WithAnotherTypeOfTheSameShape_StillFails()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            store.GetCollection<int, Guild>("guilds", g => g.Id);
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var e = Assert.Throws<InvalidOperationException>(() => store.GetCollection<int, Dictionary<int, Guild>>("guilds", _ => 0));
            Assert.Contains("Stellar.Store.Tests.Codecs.Evolution.Guild", e.Message, StringComparison.Ordinal);
        }
    }
}

/// <summary>A place keyed by realm (an enum of either version) and id.</summary>
public sealed record Place(int Realm, int Id, string Name);
