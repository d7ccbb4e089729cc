using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Shards;

public sealed class RecoveryTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>Writes 5 players, one block each, and returns the shard file and the offset of its last block.</summary>
    private static async Task<(string Shard, long LastBlockOffset, byte[] Bytes)> WriteFiveAsync(string path)
    {
        long before = 0;
        await using (var store = await StellarStore.OpenAsync(path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < 5; i++)
            {
                before = new FileInfo(Directory.GetFiles(path, "*.shard").SingleOrDefault() ?? "none").Exists
                    ? new FileInfo(Directory.GetFiles(path, "*.shard").Single()).Length
                    : 0;
                await players.InsertAsync(new Player(i, $"p{i}", i, i * 10));
            }
        }

        var shard = Directory.GetFiles(path, "*.shard").Single();
        return (shard, before, File.ReadAllBytes(shard));
    }

    [Fact]
    public async Task Open_WhenLastBlockIsCutAtEveryByte_KeepsEarlierBlocksAndReportsTheCut()
    {
        var template = _dir.Sub("template");
        var (shard, lastOffset, bytes) = await WriteFiveAsync(template);
        for (var cut = lastOffset; cut < bytes.Length; cut++)
        {
            var path = _dir.Sub($"cut{cut}");
            CopyDirectory(template, path);
            var copy = Path.Combine(path, Path.GetFileName(shard));
            using (var f = new FileStream(copy, FileMode.Open))
            {
                f.SetLength(cut);
            }

            await using (var store = await StellarStore.OpenAsync(path))
            {
                Assert.Equal(cut - lastOffset, store.Recovery.TruncatedBytes);
                var players = store.GetCollection<int, Player>("players", p => p.Id);
                Assert.Equal(4L, players.Count);
                Assert.Null(players.Get(4));
                Assert.All(Enumerable.Range(0, 4), id => Assert.Equal(new Player(id, $"p{id}", id, id * 10), players.Get(id)));

                // The store keeps working after the cut.
                await players.InsertAsync(new Player(4, "again", 4, 40));
            }

            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task Open_WhenAnyByteIsFlipped_DetectsItAndNeverReturnsAWrongValue()
    {
        var template = _dir.Sub("template");
        var (shard, _, bytes) = await WriteFiveAsync(template);
        for (var i = 0; i < bytes.Length; i++)
        {
            var path = _dir.Sub($"flip{i}");
            CopyDirectory(template, path);
            var copy = Path.Combine(path, Path.GetFileName(shard));
            var damaged = (byte[])bytes.Clone();
            damaged[i] ^= 0x01;
            File.WriteAllBytes(copy, damaged);
            try
            {
                await using var store = await StellarStore.OpenAsync(path);
                var players = store.GetCollection<int, Player>("players", p => p.Id);

                // Only a damaged last block may be cut (as a torn tail); every value that remains is exact.
                Assert.True(store.Recovery.TruncatedBytes > 0, $"flip at {i} went unnoticed");
                foreach (var p in players.Query())
                {
                    Assert.Equal(new Player(p.Id, $"p{p.Id}", p.Id, p.Id * 10), p);
                }

                // The cut took the last block (player 4) and nothing before it.
                Assert.True(players.Count == 4, $"flip at {i}: {players.Count} players after the cut, not the 4 before the last block");
                Assert.All(Enumerable.Range(0, 4), id => Assert.Equal(new Player(id, $"p{id}", id, id * 10), players.Get(id)));
            }
            catch (CorruptBlockException e)
            {
                Assert.EndsWith(Path.GetFileName(shard), e.Path, StringComparison.Ordinal);
            }

            Directory.Delete(path, recursive: true);
        }
    }

    [Fact]
    public async Task Open_WhenAShardIsMissing_ThrowsCorruptStoreNamingIt()
    {
        var (shard, _, _) = await WriteFiveAsync(_dir.Path);
        File.Delete(shard);
        var e = await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(_dir.Path));
        Assert.Equal(shard, e.Path);
    }

    [Fact]
    public async Task Open_WhenManifestIsDamaged_ThrowsCorruptStore()
    {
        await WriteFiveAsync(_dir.Path);
        var manifest = Path.Combine(_dir.Path, "MANIFEST");
        var bytes = File.ReadAllBytes(manifest);
        bytes[bytes.Length / 2] ^= 0x20;
        File.WriteAllBytes(manifest, bytes);
        await Assert.ThrowsAsync<CorruptStoreException>(() => StellarStore.OpenAsync(_dir.Path));
    }

    [Fact]
    public async Task Open_WhenManifestIsFromANewerFormat_ThrowsIncompatibleFormat()
    {
        await WriteFiveAsync(_dir.Path);
        var manifest = Path.Combine(_dir.Path, "MANIFEST");
        var bytes = File.ReadAllBytes(manifest);
        BitConverter.GetBytes(99).CopyTo(bytes, 4);
        var crc = Stellar.Store.Format.Crc32C.Compute(bytes.AsSpan(0, bytes.Length - 4));
        BitConverter.GetBytes(crc).CopyTo(bytes, bytes.Length - 4);
        File.WriteAllBytes(manifest, bytes);
        var e = await Assert.ThrowsAsync<IncompatibleFormatException>(() => StellarStore.OpenAsync(_dir.Path));
        Assert.Equal(99, e.Found);
    }

    [Fact]
    public async Task Open_WithGarbageFileAmongShards_IgnoresAndReportsIt()
    {
        await WriteFiveAsync(_dir.Path);
        File.WriteAllBytes(Path.Combine(_dir.Path, "c00000001-000000ff.shard"), new byte[] { 1, 2, 3 });
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        Assert.Contains("c00000001-000000ff.shard", store.Recovery.IgnoredFiles);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(5L, players.Count);
        Assert.All(Enumerable.Range(0, 5), id => Assert.Equal(new Player(id, $"p{id}", id, id * 10), players.Get(id)));
    }

    private static void CopyDirectory(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from))
        {
            if (!file.EndsWith("LOCK", StringComparison.Ordinal))
            {
                File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
            }
        }
    }
}
