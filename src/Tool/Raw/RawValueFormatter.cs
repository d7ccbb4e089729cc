using System.Buffers;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Tool.Raw;

/// <summary>Writes a <see cref="RawValue"/>'s bytes as they are (not its key) and reads one whole MessagePack value into one.</summary>
internal sealed class RawValueFormatter : IMessagePackFormatter<RawValue?>
{
    public void Serialize(ref MessagePackWriter writer, RawValue? value, MessagePackSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(value);
        writer.WriteRaw(value.Bytes.Span);
    }

    // A nil value reads as null, which the store refuses as damage, as it refuses a nil value of any type.
    public RawValue? Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
    {
        if (reader.TryReadNil())
        {
            return null;
        }

        return new RawValue(reader.ReadRaw().ToArray());
    }
}
