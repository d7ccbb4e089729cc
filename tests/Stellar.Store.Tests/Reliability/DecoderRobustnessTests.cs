using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Seeded mutations of valid blocks and manifests, most of them resealed (checksums, and for encrypted stores the
/// AES-GCM tag, recomputed) so that they reach the decompressor, the record parser, MessagePack and the manifest
/// reader. The only acceptable outcomes: the store loads exactly what was written (judged against the test's own
/// copy, <see cref="TemplateHistory"/>; a prefix only when it reports a cut tail; see <see cref="DecoderOutcome"/>),
/// or it throws a documented exception naming the file; never another exception, a hang, or an allocation out of
/// proportion to the bytes. Each run must reach loads, cuts and refusals.
/// </summary>
public sealed partial class DecoderRobustnessTests : IDisposable
{
    private static readonly TimeSpan CaseTimeout = TimeSpan.FromMinutes(1);
    private static readonly byte[] Key = Enumerable.Range(0, 32).Select(i => (byte)(255 - i)).ToArray();

    private readonly ActorSystem _system = ActorSystem.Create("decoder-tests", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));
    private readonly ITestOutputHelper _output;

    public DecoderRobustnessTests(ITestOutputHelper output) => _output = output;

    public void Dispose()
    {
        _system.Terminate().Wait(CaseTimeout);
        _system.Dispose();
    }

    /// <summary>A small valid store in one mode, and a codec that encodes blocks exactly as that store does.</summary>
    private sealed record Template(string Name, StoreOptions Options, Dictionary<string, byte[]> Files, BlockCodec Codec, AesGcmBlockCipher? Cipher, byte[]? MacKey, TemplateHistory History);

    private StoreOptions Options(Compression compression, bool encrypted) => new()
    {
        Compression = compression,
        EncryptionKey = encrypted ? Key : null,
        MaxDegreeOfParallelism = 1, // decode on the calling thread, so its allocations can be measured there
        ActorSystem = _system,
    };

    private async Task<Template> BuildAsync(Compression compression, bool encrypted)
    {
        var options = Options(compression, encrypted);
        var storage = new MemoryStorage();
        var random = new Random(3);
        var history = new TemplateHistory();
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            for (var i = 0; i < 5; i++)
            {
                await players.InsertAsync(new Player(i, $"player {i}", i, i * 100L));
                history.RecordPlayers([new Player(i, $"player {i}", i, i * 100L)]);
                var voxels = new byte[i * 300];
                if (i % 2 == 0)
                {
                    random.NextBytes(voxels);
                }

                await chunks.InsertAsync(new Chunk { Id = $"chunk-{i}", Voxels = voxels });
                history.RecordChunks(new Chunk { Id = $"chunk-{i}", Voxels = voxels });
            }

            await players.WriteAsync(b => b.Upsert(new Player(10, "ten", 10, 10)).Delete(1).Update(new Player(2, "two", 2, 2)));
            history.RecordPlayers([new Player(10, "ten", 10, 10), new Player(2, "two", 2, 2)], 1);
            await players.DeleteAsync(3);
            history.RecordPlayers([], 3);
            await chunks.DeleteAsync("chunk-1");
            history.RecordChunks(null, "chunk-1");
            var imported = Enumerable.Range(100, 200).Select(i => new Player(i, new string('n', i % 40), i, i)).ToList();
            await players.BulkImportAsync(imported);

            // An import keeps a prefix of its source in whole blocks, wherever its blocks end: one step per record.
            imported.ForEach(p => history.RecordPlayers([p]));
        }

        var files = storage.List().ToDictionary(name => name, storage.ReadAllBytes);
        var manifest = Manifest.Parse(files[StoreFileNames.Manifest], StoreFileNames.Manifest);
        var masterKey = manifest.Encryption is null ? null : KeyMaterial.Unlock(manifest.Encryption, Key, null);
        var cipher = masterKey is null ? null : new AesGcmBlockCipher(masterKey);
        var codec = new BlockCodec(compression == Compression.Lz4 ? new Lz4Compressor() : null, new Lz4Compressor(), cipher);
        return new Template($"{compression}{(encrypted ? "+aes" : "")}", options, files, codec, cipher, masterKey is null ? null : Manifest.DeriveMacKey(masterKey), history);
    }

    private async Task<Template[]> TemplatesAsync() =>
    [
        await BuildAsync(Compression.None, encrypted: false),
        await BuildAsync(Compression.Lz4, encrypted: false),
        await BuildAsync(Compression.None, encrypted: true),
        await BuildAsync(Compression.Lz4, encrypted: true),
    ];

    [Fact]
    public async Task Load_OfRandomlyMutatedBlocks_LoadsOrThrowsCorruptBlockWithBoundedAllocation()
    {
        var templates = await TemplatesAsync();
        await AssertMeasurementSeesTheDecoderAsync();
        var outcomes = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var seed in Stress.Seeds(first: 1, normal: 1_500, stress: 40_000))
        {
            var random = new Random(seed);
            var template = templates[seed % templates.Length];
            var shardName = template.Files.Keys.Where(n => n.EndsWith(".shard", StringComparison.Ordinal)).Order(StringComparer.Ordinal).ElementAt(random.Next(2));
            var original = template.Files[shardName];
            var shard = MutateShard(template, original, random, out var what, out var resealed);
            var context = string.Create(CultureInfo.InvariantCulture, $"block seed {seed} ({template.Name}, {shardName}: {what}; rerun with STELLAR_SEED={seed})");
            var files = new Dictionary<string, byte[]>(template.Files) { [shardName] = shard };
            var damage = resealed ? DecoderOutcome.Damage.ResealedBlock
                : EndsAtABlockOf(original, shard) ? DecoderOutcome.Damage.TailBlocksRemoved
                : DecoderOutcome.Damage.Unsealed;
            var outcome = await RunCaseAsync(files, template, context, expectBlockDamage: true, damage);
            outcomes[outcome] = outcomes.GetValueOrDefault(outcome) + 1;
        }

        _output.WriteLine(string.Join(", ", outcomes.OrderBy(o => o.Key, StringComparer.Ordinal).Select(o => $"{o.Value} {o.Key}")));
        AssertExercised(outcomes, DecoderOutcome.Loaded, DecoderOutcome.LoadedAfterCut, "refused at open (CorruptBlockException)");
    }

    [Fact]
    public async Task Open_WithRandomlyMutatedManifests_OpensOrThrowsADocumentedException()
    {
        var templates = await TemplatesAsync();
        var outcomes = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var seed in Stress.Seeds(first: 1, normal: 1_000, stress: 20_000))
        {
            var random = new Random(seed);
            var template = templates[seed % templates.Length];
            var manifest = MutateManifest(template.Files[StoreFileNames.Manifest], template.MacKey, random, out var what, out var resealed);
            var context = string.Create(CultureInfo.InvariantCulture, $"manifest seed {seed} ({template.Name}: {what}; rerun with STELLAR_SEED={seed})");
            var files = new Dictionary<string, byte[]>(template.Files) { [StoreFileNames.Manifest] = manifest };
            var outcome = await RunCaseAsync(files, template, context, expectBlockDamage: false, resealed ? DecoderOutcome.Damage.ResealedManifest : DecoderOutcome.Damage.Unsealed);
            outcomes[outcome] = outcomes.GetValueOrDefault(outcome) + 1;
        }

        _output.WriteLine(string.Join(", ", outcomes.OrderBy(o => o.Key, StringComparer.Ordinal).Select(o => $"{o.Value} {o.Key}")));
        AssertExercised(outcomes, DecoderOutcome.Loaded, "refused at open (CorruptStoreException)");
    }

    [Fact]
    public async Task Open_WhenAResealedHeaderClaimsMoreRecordsThanItsBytesHold_ThrowsCorruptBlockBeforeAllocatingForThem()
    {
        // Found by the block mutations above: a resealed record count sized an array of that many records, which
        // took the whole machine's memory before failing.
        var template = (await TemplatesAsync())[0];
        var shardName = template.Files.Keys.Where(n => n.EndsWith(".shard", StringComparison.Ordinal)).Order(StringComparer.Ordinal).First();
        var shard = (byte[])template.Files[shardName].Clone();
        var first = ShardFiles.FirstBlockOffset(shard);
        var header = BlockHeader.TryRead(shard.AsSpan(first), out _)!.Value;
        foreach (var count in new uint[] { (uint)(header.RawLength / RecordFormat.MinRecordLength) + 1, 500_000_000, uint.MaxValue })
        {
            var forged = BlockSurgery.WithHeader(shard.AsSpan(first, header.BlockLength), header with { RecordCount = count });
            byte[] edited = [.. shard.AsSpan(0, first), .. forged, .. shard.AsSpan(first + header.BlockLength)];
            var files = new Dictionary<string, byte[]>(template.Files) { [shardName] = edited };
            Assert.Equal("refused at open (CorruptBlockException)", await RunCaseAsync(files, template, $"record count {count}", expectBlockDamage: true, DecoderOutcome.Damage.ResealedBlock));
        }
    }

    [Theory]
    [InlineData("Collections = null")]
    [InlineData("Collections[0] = null")]
    [InlineData("Collections[0].Name = null")]
    [InlineData("Collections[0].KeyType = null")]
    [InlineData("Collections[0].Shards = null")]
    [InlineData("Collections[0].Shards = [0]")]
    [InlineData("Collections[1].Id = Collections[0].Id")]
    [InlineData("Collections[1].Name = Collections[0].Name")]
    [InlineData("Collections[0].NextShardId = 1")]
    [InlineData("Encryption.Salt = AAAA")]
    [InlineData("Encryption.Kdf = null")]
    public async Task Open_WhenAResealedManifestCannotDescribeAStore_ThrowsCorruptStoreNamingIt(string edit)
    {
        // Found by the manifest mutations above: each of these threw NullReferenceException, ArgumentNullException
        // or InvalidDataException from the open instead of the documented CorruptStoreException.
        var template = (await TemplatesAsync())[3];
        var body = ManifestSurgery.Body(template.Files[StoreFileNames.Manifest]);
        var root = JsonNode.Parse(body)!.AsObject();
        var collections = root["Collections"]!.AsArray();
        switch (edit)
        {
            case "Collections = null": root["Collections"] = null; break;
            case "Collections[0] = null": collections[0] = null; break;
            case "Collections[0].Name = null": collections[0]!["Name"] = null; break;
            case "Collections[0].KeyType = null": collections[0]!["KeyType"] = null; break;
            case "Collections[0].Shards = null": collections[0]!["Shards"] = null; break;
            case "Collections[0].Shards = [0]": collections[0]!["Shards"] = new JsonArray(JsonValue.Create(0)); break;
            case "Collections[1].Id = Collections[0].Id": collections[1]!["Id"] = collections[0]!["Id"]!.DeepClone(); break;
            case "Collections[1].Name = Collections[0].Name": collections[1]!["Name"] = collections[0]!["Name"]!.DeepClone(); break;
            case "Collections[0].NextShardId = 1": collections[0]!["NextShardId"] = 1; break;
            case "Encryption.Salt = AAAA": root["Encryption"]!["Salt"] = "AAAA"; break;
            default: root["Encryption"]!["Kdf"] = null; break;
        }

        var manifest = ManifestSurgery.Reseal(template.Files[StoreFileNames.Manifest], Encoding.UTF8.GetBytes(root.ToJsonString()), template.MacKey);

        var storage = new MemoryStorage();
        foreach (var (name, bytes) in template.Files)
        {
            storage.ReplaceAtomically(name, name == StoreFileNames.Manifest ? manifest : bytes);
        }

        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(storage, template.Options));
        Assert.EndsWith(StoreFileNames.Manifest, error.Path, StringComparison.Ordinal);
    }

    /// <summary>Opens the files on a fresh storage and loads both collections, on a thread of its own, bounded in time.</summary>
    private static async Task<string> RunCaseAsync(Dictionary<string, byte[]> files, Template template, string context, bool expectBlockDamage, DecoderOutcome.Damage damage)
    {
        try
        {
            return await Task.Run(() => RunCase(files, template, context, expectBlockDamage, damage)).WaitAsync(CaseTimeout);
        }
        catch (TimeoutException)
        {
            throw new XunitException($"{context}: no outcome within {CaseTimeout} (a loop or a stall)");
        }
    }

    private static string RunCase(Dictionary<string, byte[]> files, Template template, string context, bool expectBlockDamage, DecoderOutcome.Damage damage)
    {
        var options = template.Options;
        var storage = new MemoryStorage();
        foreach (var (name, bytes) in files)
        {
            storage.ReplaceAtomically(name, bytes);
        }

        StellarStore store;
        try
        {
            store = StellarStore.OpenAsync(storage, options).GetAwaiter().GetResult();
        }
        catch (Exception e)
        {
            AssertDocumented(e, atOpen: true, expectBlockDamage, context);
            return $"refused at open ({e.GetType().Name})";
        }

        try
        {
            var cut = store.Recovery.TruncatedBytes > 0;
            var shardBytes = files.Where(f => f.Key.EndsWith(".shard", StringComparison.Ordinal)).Sum(f => (long)f.Value.Length);
            var before = GC.GetAllocatedBytesForCurrentThread();
            string outcome;
            try
            {
                var players = store.GetCollection<int, Player>("players", p => p.Id);
                var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
                var allPlayers = players.Query().ToList();
                var allChunks = chunks.Query().ToList();
                Assert.Equal(allPlayers.Count, players.Count);
                Assert.Equal(allChunks.Count, chunks.Count);
                Assert.All(allPlayers, Assert.NotNull);
                Assert.All(allChunks, Assert.NotNull);
                outcome = DecoderOutcome.Of(template.History, allPlayers, allChunks, cut, damage, context);
            }
            catch (Exception e) when (e is not XunitException)
            {
                AssertDocumented(e, atOpen: false, expectBlockDamage, context);
                outcome = $"refused at load ({e.GetType().Name})";
            }

            // Decoding may take memory in proportion to the bytes on disk and the lengths the verified headers
            // state (capped by the format), never to a count or length that the bytes do not back.
            var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            var bound = (64 * shardBytes) + (16 * ClaimedRawBytes(files)) + (8L << 20);
            Assert.True(allocated <= bound, $"{context}: loading allocated {allocated:N0} bytes for {shardBytes:N0} bytes of shards");
            return outcome;
        }
        finally
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    /// <summary>Fails unless every outcome is one this suite knows and the run reached each of <paramref name="required"/>.</summary>
    private static void AssertExercised(Dictionary<string, int> outcomes, params string[] required)
    {
        Assert.All(outcomes.Keys, o => Assert.True(DecoderOutcome.IsKnown(o), $"unknown outcome '{o}'"));
        if (Stress.Seed is null)
        {
            Assert.All(required, o => Assert.True(outcomes.GetValueOrDefault(o) > 0, $"no case ended '{o}': the mutations no longer reach it"));
        }
    }

    /// <summary>Throws, naming the case, unless <paramref name="e"/> is an outcome the API documents for damaged files.</summary>
    private static void AssertDocumented(Exception e, bool atOpen, bool expectBlockDamage, string context)
    {
        var documented = e switch
        {
            CorruptBlockException block => block.Path.EndsWith(".shard", StringComparison.Ordinal),
            CorruptStoreException store => store.Path.EndsWith(".shard", StringComparison.Ordinal) || (!expectBlockDamage && store.Path.EndsWith(StoreFileNames.Manifest, StringComparison.Ordinal)),
            IncompatibleFormatException or WrongKeyException => atOpen && !expectBlockDamage,

            // A manifest edited to name other types for a collection: GetCollection's documented mismatch.
            InvalidOperationException mismatch => !atOpen && !expectBlockDamage && mismatch.Message.Contains("it was asked for as", StringComparison.Ordinal),
            _ => false,
        };
        if (!documented)
        {
            throw new XunitException($"{context}: undocumented outcome {e}");
        }
    }

    /// <summary>The raw lengths every readable block header of the shards claims.</summary>
    private static long ClaimedRawBytes(Dictionary<string, byte[]> files)
    {
        long claimed = 0;
        foreach (var (_, bytes) in files.Where(f => f.Key.EndsWith(".shard", StringComparison.Ordinal)))
        {
            for (var offset = 0; offset + BlockHeader.MinSize <= bytes.Length; offset++)
            {
                if (BlockHeader.TryRead(bytes.AsSpan(offset), out _) is { } header)
                {
                    claimed += header.RawLength;
                }
            }
        }

        return claimed;
    }

    /// <summary>A block at a time: a decoder that allocates nothing on this thread would make the bound meaningless.</summary>
    private async Task AssertMeasurementSeesTheDecoderAsync()
    {
        var options = Options(Compression.Lz4, encrypted: true);
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            await store.GetCollection<string, Chunk>("chunks", c => c.Id).InsertAsync(new Chunk { Id = "big", Voxels = new byte[1 << 20] });
        }

        await using var reopened = await StellarStore.OpenAsync(storage, options);
        var before = GC.GetAllocatedBytesForCurrentThread();
        Assert.Single(reopened.GetCollection<string, Chunk>("chunks", c => c.Id).Query());
        Assert.True(GC.GetAllocatedBytesForCurrentThread() - before >= 1 << 20, "the decoder did not run on the calling thread");
    }

    /// <summary>Whether <paramref name="damaged"/> is <paramref name="original"/> cut short at the end of one of its blocks (or of its header).</summary>
    private static bool EndsAtABlockOf(byte[] original, byte[] damaged) =>
        damaged.Length < original.Length
        && original.AsSpan().StartsWith(damaged)
        && (damaged.Length == ShardFiles.FirstBlockOffset(original) || BlockSurgery.Blocks(original).Any(b => b.Offset + b.Length == damaged.Length));
}
