using System.Buffers;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Tool.Raw;

/// <summary>Writes a stand-in's bytes as they are and reads one whole MessagePack value into one.</summary>
/// <typeparam name="T"><see cref="RawKey"/> or <see cref="RawValue"/>.</typeparam>
internal sealed class RawFormatter<T> : IMessagePackFormatter<T?>
    where T : class, IRawMessagePack<T>
{
    public void Serialize(ref MessagePackWriter writer, T? value, MessagePackSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(value);
        writer.WriteRaw(value.Bytes.Span);
    }

    // A nil reads as null, which the store refuses as damage, as it refuses a nil key or value of any type.
    public T? Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options) =>
        reader.TryReadNil() ? null : T.Read(reader.ReadRaw().ToArray());
}
