using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// Game saves are copied all the time (cloud sync, backups, a world moved to another PC). Two copies of an encrypted
/// store that both write again must never encrypt under the same key and nonce, and a file taken from one copy must
/// not pass as part of the other.
/// </summary>
public sealed class CopiedStoreTests : IDisposable
{
    private static readonly string Payload = new('p', 400);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static StoreOptions Options => new()
    {
        Durability = Durability.Fsync,
        EncryptionKey = WorkloadOptions.EncryptionKey(),
    };

    [Fact]
    public async Task Writes_ToTwoCopiesOfAnEncryptedStore_NeverReuseAKeystream()
    {
        var (a, b) = await TwoCopiesAsync();

        // The same record but one byte, written as the first block after the copy, in each copy.
        await WriteOneAsync(a, new WorkloadItem(100, Task: 1, Step: 0, Payload));
        await WriteOneAsync(b, new WorkloadItem(100, Task: 2, Step: 0, Payload));

        var blockA = NewBlocks(a).Single();
        var blockB = NewBlocks(b).Single();

        // Both copies gave the block the same shard and sequence (the nonce). Under one key the two ciphertexts would
        // be the plaintexts XOR one keystream, so they would agree wherever the plaintexts do: everywhere but a byte.
        Assert.Equal((blockA.Header.ShardId, blockA.Header.Sequence), (blockB.Header.ShardId, blockB.Header.Sequence));
        var length = Math.Min(blockA.Bytes.Length, blockB.Bytes.Length) - 44;
        var equal = Enumerable.Range(44, length).Count(i => blockA.Bytes[i] == blockB.Bytes[i]);
        Assert.True(equal < length / 8, $"{equal} of {length} ciphertext bytes are equal in the two copies: the keystream was reused");
    }

    [Fact]
    public async Task Open_WhenAShardFileComesFromAnotherCopy_RefusesItNamingTheFile()
    {
        var (a, b) = await TwoCopiesAsync();
        await WriteOneAsync(a, new WorkloadItem(100, Task: 1, Step: 0, Payload));
        await WriteOneAsync(b, new WorkloadItem(100, Task: 2, Step: 0, Payload));
        var swapped = NewBlocks(b).Single().File;
        File.Copy(Path.Combine(b, swapped), Path.Combine(a, swapped), overwrite: true);

        var error = await Assert.ThrowsAsync<CorruptBlockException>(() => StellarStore.OpenAsync(a, Options));
        Assert.Equal(Path.Combine(a, swapped), error.Path);
    }

    private async Task<(string A, string B)> TwoCopiesAsync()
    {
        var original = _dir.Sub("original");
        await using (var store = await StellarStore.OpenAsync(original, Options))
        {
            var items = store.GetCollection<int, WorkloadItem>("items", i => i.Id);
            for (var i = 0; i < 5; i++)
            {
                await items.InsertAsync(new WorkloadItem(i, 0, 0, Payload));
            }
        }

        var a = _dir.Sub("a");
        var b = _dir.Sub("b");
        foreach (var copy in new[] { a, b })
        {
            Directory.CreateDirectory(copy);
            foreach (var file in Directory.EnumerateFiles(original))
            {
                File.Copy(file, Path.Combine(copy, Path.GetFileName(file)));
            }
        }

        return (a, b);
    }

    private static async Task WriteOneAsync(string path, WorkloadItem item)
    {
        await using var store = await StellarStore.OpenAsync(path, Options);
        await store.GetCollection<int, WorkloadItem>("items", i => i.Id).UpsertAsync(item);
    }

    /// <summary>The blocks of shard files the original store did not have.</summary>
    private List<ShardFiles.Block> NewBlocks(string copy)
    {
        var original = Directory.EnumerateFiles(_dir.Sub("original")).Select(Path.GetFileName).ToHashSet();
        return Directory.EnumerateFiles(copy, "*.shard").Where(f => !original.Contains(Path.GetFileName(f)))
            .SelectMany(f => ShardFiles.Blocks(Path.GetFileName(f), File.ReadAllBytes(f))).ToList();
    }
}
