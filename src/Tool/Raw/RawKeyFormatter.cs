using System.Buffers;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Tool.Raw;

/// <summary>Writes a <see cref="RawKey"/>'s bytes as they are and reads one whole MessagePack value into one.</summary>
internal sealed class RawKeyFormatter : IMessagePackFormatter<RawKey?>
{
    public void Serialize(ref MessagePackWriter writer, RawKey? value, MessagePackSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(value);
        writer.WriteRaw(value.Bytes.Span);
    }

    // A nil key reads as null, which the store refuses as damage, as it refuses a nil key of any type.
    public RawKey? Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options) =>
        reader.TryReadNil() ? null : new RawKey(reader.ReadRaw().ToArray());
}
