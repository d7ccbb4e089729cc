using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Feed;

/// <summary>
/// Writes a <see cref="FeedCursorRecord"/> as a MessagePack array: <c>[key, position]</c> for a cursor that holds no
/// compaction, which is byte for byte the record the first builds with cursors stored (a <c>(string, string)</c>
/// tuple), and <c>[key, position, holdBytes]</c> for one that does. Reads both.
/// </summary>
/// <remarks>Thread safety: stateless; any thread.</remarks>
internal sealed class FeedCursorRecordFormatter : IMessagePackFormatter<FeedCursorRecord>
{
    public void Serialize(ref MessagePackWriter writer, FeedCursorRecord value, MessagePackSerializerOptions options)
    {
        writer.WriteArrayHeader(value.HoldBytes is null ? 2 : 3);
        writer.Write(value.Id);
        writer.Write(value.Position);
        if (value.HoldBytes is { } holdBytes)
        {
            writer.Write(holdBytes);
        }
    }

    public FeedCursorRecord Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
    {
        var fields = reader.ReadArrayHeader();
        if (fields is not (2 or 3))
        {
            throw new MessagePackSerializationException($"A change feed cursor record has {fields} fields; it has 2 or 3.");
        }

        var id = reader.ReadString() ?? throw new MessagePackSerializationException("A change feed cursor record has no key.");
        var position = reader.ReadString() ?? throw new MessagePackSerializationException("A change feed cursor record has no position.");
        return new FeedCursorRecord(id, position, fields == 3 ? reader.ReadInt64() : null);
    }
}
