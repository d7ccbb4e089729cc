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

        var maps = Manifest.Parse(storage.ReadAllBytes(Manifest.FileName), Manifest.FileName).Collections.Single();
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
