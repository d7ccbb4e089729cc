using MessagePack;

namespace Stellar.Store.Tool.Raw;

/// <summary>
/// A value as the MessagePack bytes the store holds, standing in for a collection's value type. The tool writes a
/// record as a value that carries its key and expiry, since it cannot compute a key from bytes it cannot read; values
/// the store reads back carry neither. Immutable.
/// </summary>
[MessagePackFormatter(typeof(RawFormatter<RawValue>))]
internal sealed class RawValue : IRawMessagePack<RawValue>
{
    public RawValue(ReadOnlyMemory<byte> bytes, RawKey? key = null, DateTimeOffset? expiresAt = null)
    {
        Bytes = bytes;
        Key = key;
        ExpiresAt = expiresAt;
    }

    /// <summary>The value's MessagePack bytes: one whole MessagePack value.</summary>
    public ReadOnlyMemory<byte> Bytes { get; }

    /// <summary>The key to write the value under; null for a value read from the store.</summary>
    public RawKey? Key { get; }

    /// <summary>When the record written expires; null for one that lasts.</summary>
    public DateTimeOffset? ExpiresAt { get; }

    public static RawValue Read(byte[] bytes) => new(bytes);

    /// <summary>The collection's key selector: the key the record is written under.</summary>
    public static RawKey KeyOf(RawValue value) =>
        value.Key ?? throw new InvalidOperationException("A value read from the store carries no key: the tool writes only values it made with one.");
}
