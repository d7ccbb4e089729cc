using MessagePack;

namespace Stellar.Store.Tool.Raw;

/// <summary>
/// A key as the MessagePack bytes the store holds, standing in for a collection's key type, which the tool does not
/// have: read and written byte for byte, equal when the bytes are. Immutable.
/// </summary>
[MessagePackFormatter(typeof(RawFormatter<RawKey>))]
internal sealed class RawKey : IEquatable<RawKey>, IRawMessagePack<RawKey>
{
    public RawKey(ReadOnlyMemory<byte> bytes) => Bytes = bytes;

    /// <summary>The key's MessagePack bytes: one whole MessagePack value.</summary>
    public ReadOnlyMemory<byte> Bytes { get; }

    public static RawKey Read(byte[] bytes) => new(bytes);

    public bool Equals(RawKey? other) => other is not null && Bytes.Span.SequenceEqual(other.Bytes.Span);

    public override bool Equals(object? obj) => Equals(obj as RawKey);

    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.AddBytes(Bytes.Span);
        return hash.ToHashCode();
    }
}
