using Stellar.Store.Format;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Codecs;

/// <summary>Blocks edited by someone who also fixes the checksums: the store's encryption still refuses them.</summary>
public sealed class StoreTamperingTests
{
    /// <summary>
    /// Each block in turn gets a flipped payload byte and recomputed CRCs, so it passes the checksum scan at open;
    /// loading the collection must then fail authentication with <see cref="CorruptBlockException"/> naming the
    /// block's file and offset, never return altered values.
    /// </summary>
    [Fact]
    public async Task GetCollection_WhenAnEncryptedBlockWasForgedWithValidChecksums_ThrowsCorruptBlockNamingIt()
    {
        var storage = new MemoryStorage();
        var options = new StoreOptions { EncryptionKey = CodecPayloads.RandomBytes(32, seed: 41), Compression = Compression.Lz4 };
        await using (var store = await StellarStore.OpenAsync(storage, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < 5; i++)
            {
                await players.InsertAsync(new Player(i, $"p{i}", i, i * 10));
            }
        }

        var name = ShardFiles.Names(storage).Single();
        var original = storage.ReadAllBytes(name);
        var blocks = ShardFiles.Blocks(name, original);
        Assert.Equal(5, blocks.Count);
        foreach (var block in blocks)
        {
            var forged = (byte[])original.Clone();
            var span = forged.AsSpan((int)block.Offset, block.Header.BlockLength);
            span[block.Header.HeaderLength + 3] ^= 0x40;
            BlockHeader.WriteBlockCrc(span);
            storage.ReplaceAtomically(name, forged);

            await using (var store = await StellarStore.OpenAsync(storage, options))
            {
                var e = Assert.Throws<CorruptBlockException>(() => store.GetCollection<int, Player>("players", p => p.Id));
                Assert.EndsWith(name, e.Path, StringComparison.Ordinal);
                Assert.Equal(block.Offset, e.Offset);
            }

            storage.ReplaceAtomically(name, original);
        }

        await using var intact = await StellarStore.OpenAsync(storage, options);
        Assert.Equal(5L, intact.GetCollection<int, Player>("players", p => p.Id).Count);
    }
}
