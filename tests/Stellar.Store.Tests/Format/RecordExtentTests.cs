using System.Buffers.Binary;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

/// <summary>
/// <see cref="RecordFormat.TryRead(ReadOnlySpan{byte}, ref int, out RecordExtent)"/> against records laid out by
/// hand from the documented layouts: compact (tag, varint lengths) and fixed (kind, u32 key length, key, and for a
/// put u32 value length, value).
/// </summary>
public sealed class RecordExtentTests
{
    [Fact]
    public void TryRead_PutThenDelete_NamesWhereEachKeyAndValueLie()
    {
        var payload = new List<byte> { 0xEE, 0xEE, 0xEE };
        payload.AddRange(Put([1, 2, 3], [9, 8, 7, 6, 5]));
        payload.AddRange(Delete([4, 4]));
        var bytes = payload.ToArray();
        var position = 3;

        Assert.True(RecordFormat.TryRead(bytes, ref position, out RecordExtent put));
        Assert.True(RecordFormat.TryRead(bytes, ref position, out RecordExtent delete));

        Assert.Equal(new RecordExtent(RecordKind.Put, 3, 17, 8, 3, 15, 5), put);
        Assert.Equal(new RecordExtent(RecordKind.Delete, 20, 7, 25, 2, 27, 0), delete);
        Assert.Equal(bytes.Length, position);
        Assert.Equal(new byte[] { 9, 8, 7, 6, 5 }, bytes.AsSpan(put.ValueOffset, put.ValueLength).ToArray());
        Assert.Equal(new byte[] { 4, 4 }, bytes.AsSpan(delete.KeyOffset, delete.KeyLength).ToArray());
    }

    [Fact]
    public void TryRead_ExpiringPut_NamesItsExpiryAndWhereItsKeyAndValueLie()
    {
        // Marker 3, expiry ticks (little-endian), then a compact put: tag 0x82 (key length 2), key, value length 3, value.
        var bytes = new byte[] { 0xEE, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0x82, 1, 2, 3, 7, 8, 9 };
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(2), 638_000_000_000_000_000);
        var position = 1;

        Assert.True(RecordFormat.TryRead(bytes, ref position, out RecordExtent put));

        Assert.Equal(new RecordExtent(RecordKind.Put, 1, 16, 11, 2, 14, 3, 638_000_000_000_000_000), put);
        Assert.Equal(bytes.Length, position);
        var written = new byte[16];
        Assert.Equal(16, RecordFormat.Write(written, RecordKind.Put, [1, 2], [7, 8, 9], 638_000_000_000_000_000));
        Assert.Equal(bytes[1..], written);
        Assert.Equal(16, RecordFormat.Length(RecordKind.Put, 2, 3, 638_000_000_000_000_000));
    }

    [Theory]
    [InlineData(0L, 0x82)] // no time after 0
    [InlineData(-5L, 0x82)] // a time before 0
    [InlineData(10L, 0xC2)] // a delete does not expire
    [InlineData(10L, 0x01)] // only a compact record follows the marker
    public void TryRead_MalformedExpiringRecord_ReturnsFalse(long ticks, byte tag)
    {
        var bytes = new byte[] { 3, 0, 0, 0, 0, 0, 0, 0, 0, tag, 1, 2, 3, 7, 8, 9 };
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(1), ticks);
        var position = 0;

        Assert.False(RecordFormat.TryRead(bytes, ref position, out RecordExtent _));
        Assert.Equal(0, position);
    }

    [Fact]
    public void TryRead_ValueLengthPastTheEnd_ReturnsFalseAndKeepsThePosition()
    {
        var bytes = Put([1], [2, 3]);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(6), 3);
        var position = 0;

        Assert.False(RecordFormat.TryRead(bytes, ref position, out RecordExtent _));
        Assert.Equal(0, position);
    }

    [Fact]
    public void TryRead_CompactPutThenDelete_NamesWhereEachKeyAndValueLie()
    {
        // Put: tag 0x83 (put, key length 3), key, value length 5, value. Delete: tag 0xc2 (delete, key length 2), key.
        byte[] bytes = [0xEE, 0x83, 1, 2, 3, 5, 9, 8, 7, 6, 5, 0xC2, 4, 4];
        var position = 1;

        Assert.True(RecordFormat.TryRead(bytes, ref position, out RecordExtent put));
        Assert.True(RecordFormat.TryRead(bytes, ref position, out RecordExtent delete));

        Assert.Equal(new RecordExtent(RecordKind.Put, 1, 10, 2, 3, 6, 5), put);
        Assert.Equal(new RecordExtent(RecordKind.Delete, 11, 3, 12, 2, 14, 0), delete);
        Assert.Equal(bytes.Length, position);
    }

    [Fact]
    public void Write_KeyOf63BytesOrMore_TakesItsLengthAsAVarintAfterTheTag()
    {
        var key = Enumerable.Repeat((byte)7, 200).ToArray();
        var record = new byte[RecordFormat.PutOverhead + 201];

        var length = RecordFormat.Write(record, RecordKind.Put, key, [0xC0]);

        // Tag 0xbf (put, length follows), 200 as a varint (c8 01), the key, value length 1, the value.
        Assert.Equal(1 + 2 + 200 + 1 + 1, length);
        Assert.Equal(new byte[] { 0xBF, 0xC8, 0x01 }, record[..3]);
        Assert.Equal(new byte[] { 0x01, 0xC0 }, record[203..205]);
    }

    [Theory]
    [InlineData(new byte[] { 0x80, 0x00 })]             // a put with an empty key: no MessagePack key is empty
    [InlineData(new byte[] { 0xBF, 0x05, 1, 2, 3, 4, 5, 0 })] // a short key length written as a varint: one record, one encoding
    [InlineData(new byte[] { 0x81, 7, 0x80, 0x00 })]    // a value length in a longer form than its shortest
    [InlineData(new byte[] { 0x81, 7, 3, 0xA2, 0x68 })] // a value that runs past the payload
    public void TryRead_MalformedCompactRecord_ReturnsFalseAndKeepsThePosition(byte[] bytes)
    {
        var position = 0;

        Assert.False(RecordFormat.TryRead(bytes, ref position, out RecordExtent _));
        Assert.Equal(0, position);
    }

    private static byte[] Put(byte[] key, byte[] value)
    {
        var record = new byte[9 + key.Length + value.Length];
        record[0] = 1;
        BinaryPrimitives.WriteInt32LittleEndian(record.AsSpan(1), key.Length);
        key.CopyTo(record, 5);
        BinaryPrimitives.WriteInt32LittleEndian(record.AsSpan(5 + key.Length), value.Length);
        value.CopyTo(record, 9 + key.Length);
        return record;
    }

    private static byte[] Delete(byte[] key)
    {
        var record = new byte[5 + key.Length];
        record[0] = 2;
        BinaryPrimitives.WriteInt32LittleEndian(record.AsSpan(1), key.Length);
        key.CopyTo(record, 5);
        return record;
    }
}
