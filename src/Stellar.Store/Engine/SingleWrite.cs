using System.Buffers;
using Stellar.Store.Format;

namespace Stellar.Store.Engine;

/// <summary>
/// One write, already encoded as a record on the caller's thread: serialization runs in parallel on the callers'
/// cores, a value that cannot be serialized fails at the call, and later changes to the caller's object cannot
/// change what is written. The record bytes live in a pooled buffer returned after commit.
/// </summary>
internal sealed class SingleWrite<TKey, TValue>
{
    [ThreadStatic]
    private static ArrayBufferWriter<byte>? s_scratch;

    private SingleWrite(WriteKind kind, TKey key, TValue? value, byte[] record, int length)
    {
        Kind = kind;
        Key = key;
        Value = value;
        Record = record;
        Length = length;
    }

    public WriteKind Kind { get; }

    public TKey Key { get; }

    public TValue? Value { get; }

    /// <summary>The encoded record (pooled): <see cref="RecordFormat"/>.</summary>
    public byte[] Record { get; private set; }

    public int Length { get; }

    public static SingleWrite<TKey, TValue> Create(WriteKind kind, TKey key, TValue? value, int maxKeyBytes, int maxValueBytes)
    {
        var scratch = s_scratch ??= new ArrayBufferWriter<byte>(256);
        scratch.Clear();
        Codecs.RecordSerializer<TKey>.Serialize(scratch, key);
        var keyLength = scratch.WrittenCount;
        if (keyLength > maxKeyBytes)
        {
            throw new ArgumentException($"The key serializes to {keyLength} bytes; keys are limited to {maxKeyBytes} bytes.", nameof(key));
        }

        if (kind != WriteKind.Delete)
        {
            Codecs.RecordSerializer<TValue>.Serialize(scratch, value!);
        }

        var valueLength = scratch.WrittenCount - keyLength;
        if (valueLength > maxValueBytes)
        {
            throw new ArgumentException($"The value serializes to {valueLength} bytes; values are limited to {maxValueBytes} bytes.", nameof(value));
        }

        var recordKind = kind == WriteKind.Delete ? RecordKind.Delete : RecordKind.Put;
        var maxLength = checked(RecordFormat.PutOverhead + scratch.WrittenCount);
        var record = ArrayPool<byte>.Shared.Rent(maxLength);
        var written = scratch.WrittenSpan;
        var length = RecordFormat.Write(record, recordKind, written[..keyLength], written[keyLength..]);
        if (scratch.Capacity > 1 << 20)
        {
            s_scratch = null;
        }

        return new SingleWrite<TKey, TValue>(kind, key, value, record, length);
    }

    /// <summary>Gives the record buffer back to the pool; the write is unusable afterwards.</summary>
    public void Release()
    {
        var record = Record;
        Record = Array.Empty<byte>();
        if (record.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(record);
        }
    }
}
