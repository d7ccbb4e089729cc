using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Damage to a store on disk, beyond Api/RecoveryTests (which cuts and flips a small plain store): the same with
/// compression and encryption on, flips that keep the checksums valid, damage to sealed shards, missing shards and
/// manifest, garbage files, and every byte and length of a damaged manifest. Each case ends in the recovered state
/// (exactly the blocks before the damage) or in a specific exception naming the file, never a wrong value.
/// </summary>
public sealed class CorruptionTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);
    private static readonly byte[] Key = Enumerable.Range(0, 32).Select(i => (byte)(i * 7)).ToArray();

    private readonly TempDirectory _dir = new();

    // One actor system for the hundreds of opens here: only recovery is under test, and a store's own system
    // costs more to start than the rest of the open.
    private readonly ActorSystem _system = ActorSystem.Create("corruption-tests", ConfigurationFactory.ParseString("akka.loglevel = WARNING"));

    public void Dispose()
    {
        _system.Terminate().Wait(HangTimeout);
        _system.Dispose();
        _dir.Dispose();
    }

    private StoreOptions Options(long maxShardBytes = 64L * 1024 * 1024) => new()
    {
        Compression = Compression.Lz4,
        EncryptionKey = Key,
        MaxShardBytes = maxShardBytes,
        ActorSystem = _system,
    };

    private static Player Expected(int id, int nameLength) =>
        new(id, id % 2 == 0 ? new string((char)('a' + (id % 26)), nameLength) : RandomText(id, nameLength), id, id * 10L);

    private static string RandomText(int seed, int length)
    {
        var random = new Random(seed);
        return new string(Enumerable.Range(0, length).Select(_ => (char)('!' + random.Next(90))).ToArray());
    }

    /// <summary>Writes players 0..count-1 one block each (compressible and incompressible in turn) and returns the shard files in chain order.</summary>
    private static async Task<string[]> WriteAsync(string path, int count, int nameLength, StoreOptions options)
    {
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < count; i++)
            {
                await players.InsertAsync(Expected(i, nameLength));
            }
        }

        return Directory.GetFiles(path, "*.shard").Order(StringComparer.Ordinal).ToArray();
    }

    /// <summary>Opens <paramref name="path"/> and returns every player, or the exception the open or the load threw.</summary>
    private static async Task<(Dictionary<int, Player>? Players, RecoveryReport? Recovery, Exception? Error)> OpenAsync(string path, StoreOptions options)
    {
        try
        {
            await using var store = await StellarStore.OpenAsync(path, options).WaitAsync(HangTimeout);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var all = players.Query().ToDictionary(p => p.Id);
            Assert.Equal(all.Count, players.Count);
            return (all, store.Recovery, null);
        }
        catch (StellarStoreException e)
        {
            return (null, null, e);
        }
    }

    private static void AssertFirst(int count, int nameLength, Dictionary<int, Player> players)
    {
        Assert.Equal(count, players.Count);
        for (var i = 0; i < count; i++)
        {
            Assert.Equal(Expected(i, nameLength), players[i]);
        }
    }

    private static void CopyStore(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from).Where(f => Path.GetFileName(f) != "LOCK"))
        {
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        }
    }

    [Fact]
    public async Task Open_WhenTheLastCompressedEncryptedBlockIsCutAtEveryByte_KeepsExactlyTheEarlierBlocks()
    {
        const int Count = 5, NameLength = 300;
        var template = _dir.Sub("template");
        var shard = (await WriteAsync(template, Count, NameLength, Options())).Single();
        var bytes = File.ReadAllBytes(shard);
        var (lastOffset, _) = BlockSurgery.Blocks(bytes)[^1];
        for (var cut = lastOffset; cut < bytes.Length; cut++)
        {
            var path = _dir.Sub($"cut{cut}");
            CopyStore(template, path);
            File.WriteAllBytes(Path.Combine(path, Path.GetFileName(shard)), bytes[..cut]);

            var (players, recovery, error) = await OpenAsync(path, Options());
            Assert.True(error is null, $"cut at {cut}: {error}");
            Assert.Equal(cut - lastOffset, recovery!.TruncatedBytes);
            AssertFirst(Count - 1, NameLength, players!);
            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task Open_WhenAnyByteOfACompressedEncryptedStoreIsFlipped_CutsOnlyTheLastBlockOrNamesFileAndBlock()
    {
        const int Count = 5, NameLength = 300;
        var template = _dir.Sub("template");
        var shard = (await WriteAsync(template, Count, NameLength, Options())).Single();
        var bytes = File.ReadAllBytes(shard);
        var blocks = BlockSurgery.Blocks(bytes);
        for (var i = 0; i < bytes.Length; i++)
        {
            var path = _dir.Sub($"flip{i}");
            CopyStore(template, path);
            var damaged = (byte[])bytes.Clone();
            damaged[i] ^= (byte)(1 << (i % 8));
            File.WriteAllBytes(Path.Combine(path, Path.GetFileName(shard)), damaged);

            var block = blocks.Count(b => b.Offset <= i) - 1;
            var (players, recovery, error) = await OpenAsync(path, Options());
            if (block < 0)
            {
                // The shard's header was made durable before the manifest named the shard: damage to it is never a
                // torn write, even in the active shard.
                var corrupt = Assert.IsType<CorruptBlockException>(error);
                Assert.Equal(Path.Combine(path, Path.GetFileName(shard)), corrupt.Path);
                Assert.Equal(0, corrupt.Offset);
            }
            else if (block == blocks.Count - 1)
            {
                // The damaged last block of the active shard is indistinguishable from a torn write: it is cut.
                Assert.True(error is null, $"flip at {i}: {error}");
                Assert.Equal(blocks[^1].Length, recovery!.TruncatedBytes);
                AssertFirst(Count - 1, NameLength, players!);
            }
            else
            {
                var corrupt = Assert.IsType<CorruptBlockException>(error);
                Assert.Equal(Path.Combine(path, Path.GetFileName(shard)), corrupt.Path);
                Assert.Equal(blocks[block].Offset, corrupt.Offset);
            }

            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task Open_WhenAnEncryptedBlockIsEditedAndItsChecksumsResealed_FailsAuthenticationNamingTheBlock()
    {
        // Checksums catch accidents; only the AES-GCM tag catches an edit that recomputes them. Every byte of every
        // block but the two checksums themselves is flipped and the block resealed.
        const int Count = 4, NameLength = 120;
        var template = _dir.Sub("template");
        var shard = (await WriteAsync(template, Count, NameLength, Options())).Single();
        var bytes = File.ReadAllBytes(shard);
        var blocks = BlockSurgery.Blocks(bytes);
        var cases = 0;
        foreach (var (offset, length) in blocks)
        {
            var checksums = BlockSurgery.Checksums(bytes.AsSpan(offset, length));
            for (var i = 0; i < length; i++)
            {
                if (i >= checksums.Start.Value && i < checksums.End.Value)
                {
                    continue;
                }

                var path = _dir.Sub($"edit{offset + i}");
                CopyStore(template, path);
                var damaged = (byte[])bytes.Clone();
                damaged[offset + i] ^= 0x10;
                BlockSurgery.Reseal(damaged.AsSpan(offset, length));
                File.WriteAllBytes(Path.Combine(path, Path.GetFileName(shard)), damaged);

                var (players, recovery, error) = await OpenAsync(path, Options());
                if (error is null)
                {
                    // Only a header edit that the scan rejects in the last block may pass as a torn tail.
                    Assert.True(offset == blocks[^1].Offset && i < checksums.Start.Value, $"edit at {offset + i} went unnoticed");
                    Assert.True(recovery!.TruncatedBytes > 0);
                    AssertFirst(Count - 1, NameLength, players!);
                }
                else
                {
                    var corrupt = Assert.IsType<CorruptBlockException>(error);
                    Assert.Equal(Path.Combine(path, Path.GetFileName(shard)), corrupt.Path);
                    Assert.True(corrupt.Offset == offset || (i < 36 && corrupt.Offset > offset), $"edit at {offset + i} reported at {corrupt.Offset}");
                }

                cases++;
                Directory.Delete(path, recursive: true);
            }
        }

        Assert.True(cases > Count * 100);
    }

    [Fact]
    public async Task Open_WhenASealedShardIsDamagedAnywhere_NamesItAndNeverCutsIt()
    {
        const int Count = 40, NameLength = 9_000;
        var template = _dir.Sub("template");
        var options = Options(maxShardBytes: 64 * 1024);
        var shards = await WriteAsync(template, Count, NameLength, options);
        Assert.True(shards.Length >= 3, $"{shards.Length} shards");
        var random = new Random(7);
        foreach (var shard in shards[..^1])
        {
            var bytes = File.ReadAllBytes(shard);
            var positions = new[] { 0, bytes.Length - 1 }.Concat(Enumerable.Range(0, Stress.Pick(40, 400)).Select(_ => random.Next(bytes.Length)));
            foreach (var i in positions)
            {
                var path = _dir.Sub($"sealed{Path.GetFileName(shard)}-{i}");
                CopyStore(template, path);
                var damaged = (byte[])bytes.Clone();
                damaged[i] ^= 0x80;
                File.WriteAllBytes(Path.Combine(path, Path.GetFileName(shard)), damaged);

                var (_, _, error) = await OpenAsync(path, options);
                var corrupt = Assert.IsType<CorruptBlockException>(error);
                Assert.Equal(Path.Combine(path, Path.GetFileName(shard)), corrupt.Path);
                Directory.Delete(path, recursive: true);
            }

            // Cut short, a sealed shard is damage too, not a torn tail.
            var cutPath = _dir.Sub($"cut-{Path.GetFileName(shard)}");
            CopyStore(template, cutPath);
            File.WriteAllBytes(Path.Combine(cutPath, Path.GetFileName(shard)), bytes[..^1]);
            var cut = Assert.IsType<CorruptBlockException>((await OpenAsync(cutPath, options)).Error);
            Assert.Equal(Path.Combine(cutPath, Path.GetFileName(shard)), cut.Path);
        }
    }

    [Fact]
    public async Task Open_WhenAnyShardIsMissing_ThrowsCorruptStoreNamingIt()
    {
        var template = _dir.Sub("template");
        var options = Options(maxShardBytes: 64 * 1024);
        var shards = await WriteAsync(template, 40, 9_000, options);
        Assert.True(shards.Length >= 3, $"{shards.Length} shards");
        foreach (var shard in shards)
        {
            var path = _dir.Sub($"missing-{Path.GetFileName(shard)}");
            CopyStore(template, path);
            File.Delete(Path.Combine(path, Path.GetFileName(shard)));

            var missing = Assert.IsType<CorruptStoreException>((await OpenAsync(path, options)).Error);
            Assert.Equal(Path.Combine(path, Path.GetFileName(shard)), missing.Path);
        }
    }

    [Fact]
    public async Task Open_WhenTheManifestIsMissingButShardsRemain_ThrowsCorruptStoreAndKeepsTheShards()
    {
        var shard = (await WriteAsync(_dir.Path, 5, 100, Options())).Single();
        var before = File.ReadAllBytes(shard);
        File.Delete(Path.Combine(_dir.Path, "MANIFEST"));

        var missing = Assert.IsType<CorruptStoreException>((await OpenAsync(_dir.Path, Options())).Error);
        Assert.Equal(Path.Combine(_dir.Path, "MANIFEST"), missing.Path);
        Assert.Equal(before, File.ReadAllBytes(shard));
        Assert.False(File.Exists(Path.Combine(_dir.Path, "MANIFEST")));
    }

    [Fact]
    public async Task Open_WhenAListedShardHoldsGarbageOrAnotherShard_NamesItOrCutsTheActiveShardWhole()
    {
        const int Count = 40, NameLength = 9_000;
        var template = _dir.Sub("template");
        var options = Options(maxShardBytes: 64 * 1024);
        var shards = await WriteAsync(template, Count, NameLength, options);
        var sealedBlocks = shards[..^1].Sum(s => BlockSurgery.Blocks(File.ReadAllBytes(s)).Count);
        var random = new Random(11);

        // Garbage in a sealed shard, or a copy of another shard, is damage named by file.
        var garbage = new byte[File.ReadAllBytes(shards[0]).Length];
        random.NextBytes(garbage);
        foreach (var (name, content) in new[] { ("garbage", garbage), ("copy", File.ReadAllBytes(shards[1])) })
        {
            var path = _dir.Sub($"sealed-{name}");
            CopyStore(template, path);
            File.WriteAllBytes(Path.Combine(path, Path.GetFileName(shards[0])), content);
            var corrupt = Assert.IsType<CorruptBlockException>((await OpenAsync(path, options)).Error);
            Assert.Equal(Path.Combine(path, Path.GetFileName(shards[0])), corrupt.Path);
            Assert.Equal(0, corrupt.Offset);
        }

        // Garbage after the active shard's header has no valid block after its start: it is cut whole as a torn
        // tail and reported, and every block of the sealed shards is kept.
        var active = _dir.Sub("active-garbage");
        CopyStore(template, active);
        random.NextBytes(garbage);
        var headerLength = ShardFiles.FirstBlockOffset(File.ReadAllBytes(shards[^1]));
        File.ReadAllBytes(shards[^1]).AsSpan(0, headerLength).CopyTo(garbage);
        File.WriteAllBytes(Path.Combine(active, Path.GetFileName(shards[^1])), garbage);
        var (players, recovery, error) = await OpenAsync(active, options);
        Assert.True(error is null, error?.ToString());
        Assert.Equal(garbage.Length - headerLength, recovery!.TruncatedBytes);
        Assert.Contains(Path.GetFileName(shards[^1]), recovery.TruncatedShards);
        AssertFirst(sealedBlocks, NameLength, players!);

        // Garbage over the active shard's header is damage, not a torn write: the header was durable before the
        // manifest named the shard.
        var header = _dir.Sub("active-header-garbage");
        CopyStore(template, header);
        random.NextBytes(garbage);
        File.WriteAllBytes(Path.Combine(header, Path.GetFileName(shards[^1])), garbage);
        var damaged = Assert.IsType<CorruptBlockException>((await OpenAsync(header, options)).Error);
        Assert.Equal((Path.Combine(header, Path.GetFileName(shards[^1])), 0L), (damaged.Path, damaged.Offset));
    }

    [Fact]
    public async Task Open_WithUnlistedGarbageFiles_IgnoresThemAndWritesOverAStaleNextShard()
    {
        const int NameLength = 100;
        var shard = (await WriteAsync(_dir.Path, 3, NameLength, Options())).Single();

        // An encrypted store starts a new shard at every open: the next id is taken by garbage a crash could have left.
        var next = Path.GetFileName(shard).Replace("00000001.shard", "00000002.shard", StringComparison.Ordinal);
        var junk = new Dictionary<string, byte[]>
        {
            [next] = [1, 2, 3, 4, 5],
            ["MANIFEST.tmp"] = [9, 9, 9],
            ["notes.txt"] = "not a store file"u8.ToArray(),
            ["c00000007-00000001.shard"] = new byte[100],
        };
        foreach (var (name, content) in junk)
        {
            File.WriteAllBytes(Path.Combine(_dir.Path, name), content);
        }

        Directory.CreateDirectory(Path.Combine(_dir.Path, "subdirectory"));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options()))
        {
            Assert.Equal(junk.Keys.Order(StringComparer.Ordinal), store.Recovery.IgnoredFiles);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            AssertFirst(3, NameLength, players.Query().ToDictionary(p => p.Id));
            await players.InsertAsync(Expected(3, NameLength));
        }

        var (reopened, recovery, error) = await OpenAsync(_dir.Path, Options());
        Assert.True(error is null, error?.ToString());
        AssertFirst(4, NameLength, reopened!);
        Assert.DoesNotContain(next, recovery!.IgnoredFiles);
    }

    [Fact]
    public async Task Open_WhenAnyManifestByteIsFlippedOrItIsCutAnywhere_ThrowsCorruptStoreNamingItAndChangesNothing()
    {
        await WriteAsync(_dir.Path, 3, 50, Options());
        await using (var store = await StellarStore.OpenAsync(_dir.Path, Options()))
        {
            // A second collection, so the manifest lists more than one.
            await store.GetCollection<string, Chunk>("chunks", c => c.Id).InsertAsync(new Chunk { Id = "a", Voxels = [1] });
        }

        var manifest = Path.Combine(_dir.Path, "MANIFEST");
        var bytes = File.ReadAllBytes(manifest);
        var damages = Enumerable.Range(0, bytes.Length).Select(i =>
            {
                var flipped = (byte[])bytes.Clone();
                flipped[i] ^= (byte)(1 << (i % 8));
                return (What: $"flip at {i}", Bytes: flipped);
            })
            .Concat(Enumerable.Range(0, bytes.Length).Select(length => (What: $"cut to {length}", Bytes: bytes[..length])))
            .Append((What: "extra byte", Bytes: [.. bytes, 0]));
        var cases = 0;
        foreach (var (what, damaged) in damages)
        {
            File.WriteAllBytes(manifest, damaged);
            var error = await Record.ExceptionAsync(() => StellarStore.OpenAsync(_dir.Path, Options()).WaitAsync(HangTimeout));
            var corrupt = Assert.IsType<CorruptStoreException>(error);
            Assert.True(corrupt.Path == manifest, $"{what}: {corrupt.Path}");
            Assert.Equal(damaged, File.ReadAllBytes(manifest));
            cases++;
        }

        File.WriteAllBytes(manifest, bytes);
        AssertFirst(3, 50, (await OpenAsync(_dir.Path, Options())).Players!);
        Assert.Equal((2 * bytes.Length) + 1, cases);
    }
}
