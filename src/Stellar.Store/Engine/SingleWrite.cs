using System.Buffers;
using System.Diagnostics;
using Stellar.Store.Codecs;
using Stellar.Store.Format;

namespace Stellar.Store.Engine;

/// <summary>
/// One write, already encoded as a record on the caller's thread: serialization runs in parallel on the callers'
/// cores, a value that cannot be serialized (or read back) fails at the call, and later changes to the caller's object
/// cannot change what is written, read or compacted: <see cref="Value"/> is decoded from the record's bytes, not the
/// caller's object, and so is <see cref="Key"/> unless its type cannot change. The record bytes live in a pooled buffer.
/// </summary>
/// <remarks>
/// One owner returns the buffer: the code that created the write until it hands the write to the collection's
/// submit path, which releases it once the write's task has an outcome, whatever the outcome (stored, rejected,
/// faulted, refused by a closing store, cancelled). The engine and the writer actor only borrow it until then.
/// <see cref="Release"/> is idempotent and thread-safe, so a buffer can never go back to the pool twice.
/// </remarks>
internal sealed class SingleWrite<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    [ThreadStatic]
    private static ArrayBufferWriter<byte>? s_scratch;

    private static long s_buffersRented;
    private static long s_buffersReturned;

    private byte[] _record;

    private SingleWrite(WriteKind kind, TKey key, TValue? value, byte[] record, int length, int valueLength, long expiresAt)
    {
        Kind = kind;
        ExpiresAt = expiresAt;
        Key = key;
        Value = value;
        _record = record;
        Length = length;
        ValueLength = valueLength;
    }

    public WriteKind Kind { get; }

    public TKey Key { get; }

    public TValue? Value { get; }

    /// <summary>When the record written expires (UTC ticks), or 0 when it does not.</summary>
    public long ExpiresAt { get; }

    /// <summary>The encoded record (pooled): <see cref="RecordFormat"/>. Empty once released.</summary>
    public byte[] Record => Volatile.Read(ref _record);

    public int Length { get; }

    /// <summary>The serialized value's length: it is the record's last bytes (0 for a delete).</summary>
    public int ValueLength { get; }

    public override long Bytes => Length;

    /// <summary>Record buffers rented for writes of this key and value type, ever (tests prove none leaks).</summary>
    internal static long BuffersRented => Interlocked.Read(ref s_buffersRented);

    /// <summary>Record buffers of this key and value type given back to the pool, ever.</summary>
    internal static long BuffersReturned => Interlocked.Read(ref s_buffersReturned);

    /// <summary>
    /// Encodes a write of <paramref name="key"/> with <paramref name="serializer"/>; a put expires at
    /// <paramref name="expiresAt"/> (UTC ticks) unless that is 0.
    /// </summary>
    public static SingleWrite<TKey, TValue> Create(RecordSerializer serializer, WriteKind kind, TKey key, TValue? value, int maxKeyBytes, int maxValueBytes, long expiresAt = 0)
    {
        Debug.Assert(expiresAt >= 0 && (expiresAt == 0 || kind != WriteKind.Delete), "only a put expires, at a time after 0");
        var scratch = s_scratch ??= new ArrayBufferWriter<byte>(256);
        scratch.Clear();
        serializer.Serialize(scratch, key);
        var keyLength = scratch.WrittenCount;
        if (keyLength > maxKeyBytes)
        {
            throw new ArgumentException($"The key serializes to {keyLength} bytes; keys are limited to {maxKeyBytes} bytes.", nameof(key));
        }

        if (kind != WriteKind.Delete)
        {
            serializer.Serialize(scratch, value!);
        }

        var valueLength = scratch.WrittenCount - keyLength;
        if (valueLength > maxValueBytes)
        {
            throw new ArgumentException($"The value serializes to {valueLength} bytes; values are limited to {maxValueBytes} bytes.", nameof(value));
        }

        serializer.EnsureReadable(scratch.WrittenMemory[..keyLength], nameof(key));
        key = serializer.EnsureKeyReadsBack(key, scratch.WrittenMemory[..keyLength], nameof(key));
        serializer.EnsureReadable(scratch.WrittenMemory[keyLength..], nameof(value));
        if (kind != WriteKind.Delete)
        {
            // The store keeps its own instance, decoded from the bytes written, never the caller's object.
            value = serializer.DecodeWritten<TValue>(scratch.WrittenMemory[keyLength..], nameof(value));
        }

        var recordKind = kind == WriteKind.Delete ? RecordKind.Delete : RecordKind.Put;
        var maxLength = checked(RecordFormat.ExpiryOverhead + RecordFormat.PutOverhead + scratch.WrittenCount);
        var record = ArrayPool<byte>.Shared.Rent(maxLength);
        Interlocked.Increment(ref s_buffersRented);
        var written = scratch.WrittenSpan;
        var length = RecordFormat.Write(record, recordKind, written[..keyLength], written[keyLength..], expiresAt);
        if (scratch.Capacity > 1 << 20)
        {
            s_scratch = null;
        }

        Debug.Assert(length == RecordFormat.Length(recordKind, keyLength, recordKind == RecordKind.Put ? valueLength : 0, expiresAt), "the record holds key and value whole");
        return new SingleWrite<TKey, TValue>(kind, key, value, record, length, recordKind == RecordKind.Put ? valueLength : 0, expiresAt);
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed) => stager.StageSingle(this, out existed);

    /// <summary>Gives the record buffer back to the pool (the first call only); the write is unusable afterwards.</summary>
    public override void Release()
    {
        var record = Interlocked.Exchange(ref _record, Array.Empty<byte>());
        if (record.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(record);
            Interlocked.Increment(ref s_buffersReturned);
        }
    }
}
