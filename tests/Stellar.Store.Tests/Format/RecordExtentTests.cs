using System.Buffers.Binary;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Format;

/// <summary>
/// <see cref="RecordFormat.TryRead(ReadOnlySpan{byte}, ref int, out RecordExtent)"/> against records laid out by
/// hand from the documented layout (kind, u32 key length, key, and for a put u32 value length, value).
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
    public void TryRead_ValueLengthPastTheEnd_ReturnsFalseAndKeepsThePosition()
    {
        var bytes = Put([1], [2, 3]);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(6), 3);
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
