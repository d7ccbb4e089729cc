using System.Buffers;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Persistence.Records;

/// <summary>
/// A <see cref="SnapshotRecord"/> as a MessagePack array, by position:
/// <code>
/// // 0 [str]     PersistenceId
/// // 1 [int64]   SequenceNr
/// // 2 [int64]   Timestamp (UTC ticks)
/// // 3 [int32]   SerializerId
/// // 4 [str]     SerializerManifest
/// // 5 [bin]     Payload
/// </code>
/// A reader skips positions it does not know, so a later version may append fields.
/// </summary>
internal sealed class SnapshotRecordFormatter : IMessagePackFormatter<SnapshotRecord?>
{
    /// <summary>The number of fields this version writes.</summary>
    public const int FieldCount = 6;

    public void Serialize(ref MessagePackWriter writer, SnapshotRecord? value, MessagePackSerializerOptions options)
    {
        if (value is null)
        {
            writer.WriteNil();
            return;
        }

        writer.WriteArrayHeader(FieldCount);
        writer.Write(value.PersistenceId);
        writer.Write(value.SequenceNr);
        writer.Write(value.Timestamp);
        writer.Write(value.SerializerId);
        writer.Write(value.SerializerManifest);
        writer.Write(value.Payload);
    }

    public SnapshotRecord? Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
    {
        if (reader.TryReadNil())
        {
            return null;
        }

        var count = reader.ReadArrayHeader();
        if (count < FieldCount)
        {
            throw new MessagePackSerializationException($"A snapshot record has {count} fields; expected at least {FieldCount}.");
        }

        var record = new SnapshotRecord
        {
            PersistenceId = reader.ReadString() ?? string.Empty,
            SequenceNr = reader.ReadInt64(),
            Timestamp = reader.ReadInt64(),
            SerializerId = reader.ReadInt32(),
            SerializerManifest = reader.ReadString() ?? string.Empty,
            Payload = reader.ReadBytes()?.ToArray() ?? [],
        };
        for (var i = FieldCount; i < count; i++)
        {
            reader.Skip();
        }

        return record;
    }
}
