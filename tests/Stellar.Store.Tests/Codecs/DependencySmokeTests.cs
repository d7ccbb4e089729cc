using K4os.Compression.LZ4;
using MessagePack;

namespace Stellar.Store.Tests.Codecs;

public sealed class DependencySmokeTests
{
    [MessagePackObject]
    public sealed record SampleRecord([property: Key(0)] int Id, [property: Key(1)] string Name, [property: Key(2)] DateTime At);

    [Fact]
    public void MessagePackThenLz4_RoundTrip_ReturnsEqualRecord()
    {
        var records = Enumerable.Range(0, 100).Select(i => new SampleRecord(i, $"player-{i % 7}", new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc))).ToArray();
        var raw = MessagePackSerializer.Serialize(records);
        var compressed = new byte[LZ4Codec.MaximumOutputSize(raw.Length)];
        var compressedLength = LZ4Codec.Encode(raw, compressed, LZ4Level.L00_FAST);
        var restored = new byte[raw.Length];
        var restoredLength = LZ4Codec.Decode(compressed.AsSpan(0, compressedLength), restored);

        Assert.True(compressedLength < raw.Length, "a repetitive payload must shrink");
        Assert.Equal(raw.Length, restoredLength);
        Assert.Equal(records, MessagePackSerializer.Deserialize<SampleRecord[]>(restored));
    }
}
