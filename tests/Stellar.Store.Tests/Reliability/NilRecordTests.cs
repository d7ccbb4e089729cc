using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// No write stores a null key or value, so a record whose key or value reads as MessagePack nil is damage or a crafted
/// block (a plain store's checksums can be recomputed by anyone): the load refuses it with
/// <see cref="CorruptBlockException"/> naming the block, and never hands a reader a null record.
/// </summary>
public sealed class NilRecordTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static string KeyOf(Player player) => $"player-{player.Id}";

    [Theory]
    [InlineData(false, 100)]
    [InlineData(true, 100)]
    [InlineData(false, 40_000)]
    public async Task Load_OfAResealedBlockWhoseRecordReadsAsNil_ThrowsCorruptBlockNamingIt(bool key, int nameLength)
    {
        var options = new StoreOptions { LargeValueThreshold = 16 * 1024 };
        var player = new Player(7, new string('n', nameLength), 3, 30);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await store.GetCollection<string, Player>("players", KeyOf).InsertAsync(player);
        }

        // The record's key or value, found by its bytes in the plain shard, gets a nil as its first byte.
        var shard = Directory.GetFiles(_dir.Path, "*.shard").Single();
        var bytes = File.ReadAllBytes(shard);
        var target = key ? MessagePackSerializer.Serialize(KeyOf(player), RecordSerializer.Default.Options) : MessagePackSerializer.Serialize(player, RecordSerializer.Default.Options);
        var at = bytes.AsSpan().IndexOf(target);
        Assert.True(at > 0, "the record's bytes are in the shard as written");
        var (offset, length) = BlockSurgery.Blocks(bytes).Single(b => b.Offset <= at && at < b.Offset + b.Length);
        bytes[at] = 0xC0;
        BlockSurgery.Reseal(bytes.AsSpan(offset, length));
        File.WriteAllBytes(shard, bytes);

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var corrupt = Assert.Throws<CorruptBlockException>(() => reopened.GetCollection<string, Player>("players", KeyOf));
        Assert.Equal(offset, corrupt.Offset);
        Assert.Contains("nil", corrupt.InnerException?.Message ?? corrupt.Message, StringComparison.Ordinal);
    }
}
