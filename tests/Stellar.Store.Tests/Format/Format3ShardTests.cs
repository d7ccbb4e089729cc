using System.Buffers.Binary;
using Stellar.Store.Format;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Format;

/// <summary>
/// Format 3 on disk: new blocks go only into shards whose header says version 3, a shard keeps the block layout of
/// its version, and a short compact block after a damaged one is found, so it is never cut as a torn tail. The
/// oracle is the raw bytes: the header version at bytes 4-5 and the magic of each block.
/// </summary>
public sealed class Format3ShardTests : IDisposable
{
    private static readonly byte[] CompactMagic = "SSB3"u8.ToArray();
    private static readonly byte[] FixedMagic = "SSB1"u8.ToArray();

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Insert_IntoAFormat2Store_LeavesItsShardsAsTheyWereAndWritesAFormat3Shard()
    {
        var path = _dir.Sub("store");
        Directory.CreateDirectory(path);
        var fixture = Path.Combine(AppContext.BaseDirectory, "Format", "Fixtures", "format2-plain");
        foreach (var file in Directory.EnumerateFiles(fixture))
        {
            File.Copy(file, Path.Combine(path, Path.GetFileName(file)));
        }

        var before = Directory.GetFiles(path, "*.shard").ToDictionary(f => f, File.ReadAllBytes);
        await using (var store = await StellarStore.OpenAsync(path, TestHost.Workload.FormatFixture.Options(encrypted: false)))
        {
            var items = store.GetCollection<int, TestHost.Workload.WorkloadItem>(TestHost.Workload.FormatFixture.CollectionName, i => i.Id);
            await items.InsertAsync(new TestHost.Workload.WorkloadItem(TestHost.Workload.FormatFixture.Keys + 1, Task: 1, Step: 1, "new"));
        }

        foreach (var (file, bytes) in before)
        {
            Assert.Equal(bytes, File.ReadAllBytes(file));
            Assert.Equal(2, BinaryPrimitives.ReadUInt16LittleEndian(bytes.AsSpan(4)));
            Assert.Equal(FixedMagic, bytes[36..40]);
        }

        var added = Directory.GetFiles(path, "*.shard").Except(before.Keys).Single();
        var shard = File.ReadAllBytes(added);
        Assert.Equal(3, BinaryPrimitives.ReadUInt16LittleEndian(shard.AsSpan(4)));
        Assert.Equal(CompactMagic, shard[36..40]);
    }

    [Fact]
    public async Task Open_WhenAFormat3ShardHeaderIsRelabelledVersion2_RefusesItsCompactBlocks()
    {
        var path = _dir.Sub("store");
        var shard = (await WriteAsync(path, count: 2)).Single();
        var bytes = File.ReadAllBytes(shard);
        BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(4), 2);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(32), Crc32C.Compute(bytes.AsSpan(0, 32)));
        File.WriteAllBytes(shard, bytes);

        var e = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(path, new StoreOptions()));

        Assert.Equal(shard, e.Path);
        Assert.Equal(ShardHeader.Size, e.Offset);
        Assert.Equal(bytes, File.ReadAllBytes(shard));
    }

    [Fact]
    public async Task Open_WhenABlockIsDamagedAndOnlyAShortBlockFollowsIt_RefusesInsteadOfCuttingTheShortBlock()
    {
        var path = _dir.Sub("store");
        var shard = (await WriteAsync(path, count: 3)).Single();
        var bytes = File.ReadAllBytes(shard);
        var blocks = ShardFiles.Blocks(shard, bytes);
        Assert.Equal(3, blocks.Count);
        Assert.True(blocks[2].Bytes.Length < BlockHeader.Size, "the last block is shorter than a fixed header");
        bytes[blocks[1].Offset + blocks[1].Bytes.Length - 1] ^= 0x01;
        File.WriteAllBytes(shard, bytes);

        var e = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(path, new StoreOptions()));

        Assert.Equal(blocks[1].Offset, e.Offset);
        Assert.Equal(bytes, File.ReadAllBytes(shard));
    }

    /// <summary>Inserts small players one awaited write (one block) each; returns the shard files.</summary>
    private static async Task<string[]> WriteAsync(string path, int count)
    {
        await using (var store = await StellarStore.OpenAsync(path, new StoreOptions()))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < count; i++)
            {
                await players.InsertAsync(new Player(i, "p", i, i));
            }
        }

        return Directory.GetFiles(path, "*.shard");
    }
}
