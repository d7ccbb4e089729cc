using System.Security.Cryptography;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// The manifest's one owner on real files: requests of several collections at once, replaces that fail before and
/// after their effect, and requests after close. Each test keeps its own record of what it asked for and compares the
/// file, read without the store's parser (<see cref="ManifestOnDisk"/>), with it.
/// </summary>
public sealed class ManifestStoreTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public enum Request
    {
        Roll,
        ReserveIds,
        ReplaceChain,
    }

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Requests_OfFourCollectionsRollingAndCompactingAtOnce_LeaveTheFileAsEachCollectionRecordedIt()
    {
        const int Collections = 4;
        var requests = Stress.Pick(60, 600);
        var manifest = ManifestStore.Open(new FileStorage(_dir.Path), _dir.Path, new StoreOptions(), out _);
        var ids = Enumerable.Range(0, Collections).Select(c => manifest.GetOrAddCollection($"c{c}", "int", "string").Id).ToArray();
        var models = ids.Select(_ => new ChainModel()).ToArray();

        await Task.WhenAll(Enumerable.Range(0, Collections).Select(c => Task.Run(() =>
        {
            var random = new Random(c);
            for (var i = 0; i < requests; i++)
            {
                if (random.Next(3) == 0 && models[c].Shards.Count > 0)
                {
                    Compact(manifest, ids[c], models[c], random);
                }
                else
                {
                    Roll(manifest, ids[c], models[c], random);
                }
            }
        })));

        var (generation, onDisk) = ManifestOnDisk.Read(_dir.Path);
        for (var c = 0; c < Collections; c++)
        {
            models[c].AssertMatches(onDisk[$"c{c}"], ids[c]);
        }

        // One replace at open, one per new collection, one per request that changes the file.
        Assert.Equal((ulong)(1 + Collections + models.Sum(m => m.Replaces)), generation);
        Assert.Equal(generation, manifest.Generation);
    }

    [Theory]
    [InlineData(Request.Roll, false)]
    [InlineData(Request.Roll, true)]
    [InlineData(Request.ReserveIds, false)]
    [InlineData(Request.ReserveIds, true)]
    [InlineData(Request.ReplaceChain, false)]
    [InlineData(Request.ReplaceChain, true)]
    public void Request_WhenItsReplaceFails_IsNotUndoneAndTheNextReplaceOfAnotherCollectionWritesIt(Request request, bool afterEffect)
    {
        var faults = new FaultInjectingStorage(new FileStorage(_dir.Path)) { Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        var manifest = ManifestStore.Open(faults, _dir.Path, new StoreOptions(), out _);
        var a = manifest.GetOrAddCollection("a", "int", "string").Id;
        var b = manifest.GetOrAddCollection("b", "int", "string").Id;
        var (modelA, modelB) = (new ChainModel(), new ChainModel());
        var random = new Random(1);
        Roll(manifest, a, modelA, random);
        Roll(manifest, a, modelA, random);
        var outputs = request == Request.ReplaceChain ? modelA.Reserve(manifest, a, 2) : 0;
        var before = ManifestOnDisk.Read(_dir.Path);

        // The model records the request as made: a replace that throws may have reached the disk.
        faults.FailReplaceAt = faults.ReplaceCount + 1;
        Assert.Throws<IOException>(() =>
        {
            switch (request)
            {
                case Request.Roll: Roll(manifest, a, modelA, random); break;
                case Request.ReserveIds: modelA.Reserve(manifest, a, 2); break;
                default: Swap(manifest, a, modelA, random, outputs, 2); break;
            }
        });

        var afterFault = ManifestOnDisk.Read(_dir.Path);
        if (!afterEffect)
        {
            Assert.Equal(before.Generation, afterFault.Generation);
            Assert.Equal(before.Collections["a"].Shards, afterFault.Collections["a"].Shards);
            Assert.Equal(before.Collections["a"].NextShardId, afterFault.Collections["a"].NextShardId);
        }
        else
        {
            modelA.AssertMatches(afterFault.Collections["a"], a);
        }

        // Memory kept the change either way, and the generation moved past the one that may be on disk.
        modelA.AssertMatches(manifest.Collection(a), a);
        Assert.Equal(before.Generation + 1, manifest.Generation);

        Roll(manifest, b, modelB, random);
        var (generation, onDisk) = ManifestOnDisk.Read(_dir.Path);
        modelA.AssertMatches(onDisk["a"], a);
        modelB.AssertMatches(onDisk["b"], b);
        Assert.Equal(before.Generation + 2, generation);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void GetOrAddCollection_WhenItsSaveFailed_SavesItAgainWhenAskedForAgain(bool afterEffect)
    {
        var faults = new FaultInjectingStorage(new FileStorage(_dir.Path)) { Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        var manifest = ManifestStore.Open(faults, _dir.Path, new StoreOptions(), out _);
        faults.FailReplaceAt = faults.ReplaceCount + 1;
        Assert.Throws<IOException>(() => manifest.GetOrAddCollection("a", "int", "string"));
        Assert.Equal(afterEffect, ManifestOnDisk.Read(_dir.Path).Collections.ContainsKey("a"));

        var entry = manifest.GetOrAddCollection("a", "int", "string");

        var (generation, onDisk) = ManifestOnDisk.Read(_dir.Path);
        Assert.Equal(entry.Id, onDisk["a"].Id);
        Assert.Equal(3ul, generation);
    }

    [Fact]
    public void ReplaceChain_WhenTheChainNoLongerStartsWithThePrefix_ChangesNothing()
    {
        var manifest = ManifestStore.Open(new FileStorage(_dir.Path), _dir.Path, new StoreOptions(), out _);
        var a = manifest.GetOrAddCollection("a", "int", "string").Id;
        var model = new ChainModel();
        var random = new Random(2);
        Roll(manifest, a, model, random);
        Roll(manifest, a, model, random);
        var output = model.Reserve(manifest, a, 1);
        var bytes = File.ReadAllBytes(Path.Combine(_dir.Path, "MANIFEST"));
        var sealedOutput = new Dictionary<uint, ManifestShard> { [output] = new() { Salt = new byte[16], FirstSequence = 1, SealedLength = 100, LastSequence = 1 } };

        Assert.Throws<InvalidOperationException>(() => manifest.ReplaceChain(a, [model.Shards[1]], [output], sealedOutput, compactedThrough: 1));

        Assert.Equal(bytes, File.ReadAllBytes(Path.Combine(_dir.Path, "MANIFEST")));
        model.AssertMatches(manifest.Collection(a), a);
    }

    [Fact]
    public void Requests_AfterClose_ThrowAndLeaveAFileThatTheKeyStillOpens()
    {
        var options = new StoreOptions { EncryptionKey = RandomNumberGenerator.GetBytes(32) };
        var manifest = ManifestStore.Open(new FileStorage(_dir.Path), _dir.Path, options, out var masterKey);
        Assert.NotNull(masterKey);
        var a = manifest.GetOrAddCollection("a", "int", "string").Id;
        var shard = manifest.ReserveShardId(a);
        var bytes = File.ReadAllBytes(Path.Combine(_dir.Path, "MANIFEST"));

        manifest.Close();

        Assert.Throws<ObjectDisposedException>(() => manifest.RollShard(a, shard, new byte[16], 1, null, null));
        Assert.Throws<ObjectDisposedException>(() => manifest.ReserveShardIds(a, 2));
        Assert.Throws<ObjectDisposedException>(() => manifest.GetOrAddCollection("b", "int", "string"));
        Assert.Equal(bytes, File.ReadAllBytes(Path.Combine(_dir.Path, "MANIFEST")));

        var reopened = ManifestStore.Open(new FileStorage(_dir.Path), _dir.Path, options, out _);
        Assert.Equal("a", Assert.Single(reopened.Collections).Name);
    }

    private static void Roll(ManifestStore manifest, uint collection, ChainModel model, Random random)
    {
        var shard = manifest.ReserveShardId(collection);
        Assert.Equal(model.NextShardId++, shard);
        var salt = RandomNumberGenerator.GetBytes(16);
        var blocks = (ulong)random.Next(0, 5);
        model.Sequence += blocks;
        ulong? last = blocks > 0 ? model.Sequence : null;
        var sealing = model.Shards.Count > 0 ? (long?)random.Next(100, 10_000) : null;

        // The model is updated first: the request counts as made even when its replace throws.
        model.Roll(shard, salt, model.Sequence + 1, sealing, last);
        manifest.RollShard(collection, shard, salt, model.Sequence + 1, sealing, last);
    }

    private static void Compact(ManifestStore manifest, uint collection, ChainModel model, Random random)
    {
        var count = random.Next(1, 4);
        Swap(manifest, collection, model, random, model.Reserve(manifest, collection, count), count);
    }

    private static void Swap(ManifestStore manifest, uint collection, ChainModel model, Random random, uint first, int count)
    {
        var prefix = model.Shards.Take(random.Next(1, model.Shards.Count + 1)).ToArray();
        var outputs = Enumerable.Range(0, count).Select(i => first + (uint)i).ToArray();
        var details = outputs.ToDictionary(id => id, id => new ManifestShard
        {
            Salt = RandomNumberGenerator.GetBytes(16),
            FirstSequence = id,
            SealedLength = random.Next(100, 10_000),
            LastSequence = id,
        });
        model.Replace(prefix, outputs, details.ToDictionary(d => d.Key, d => ManifestOnDisk.Details(d.Value.Salt, d.Value.FirstSequence, d.Value.SealedLength, d.Value.LastSequence)));
        manifest.ReplaceChain(collection, prefix, outputs, details, compactedThrough: 1);
    }
}
