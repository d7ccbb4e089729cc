using System.Buffers;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Persistence.Records;

/// <summary>
/// A <see cref="JournalRecord"/> as a MessagePack array, by position:
/// <code>
/// // 0 [str]     PersistenceId
/// // 1 [int64]   SequenceNr
/// // 2 [int64]   Ordering
/// // 3 [int64]   Timestamp (UTC ticks)
/// // 4 [str]     WriterGuid
/// // 5 [str]     Manifest (event adapter)
/// // 6 [int32]   SerializerId
/// // 7 [str]     SerializerManifest
/// // 8 [bin]     Payload
/// // 9 [array]   Tags, of str
/// // 10 [int64]  DeletedTo
/// </code>
/// A reader skips positions it does not know, so a later version may append fields.
/// </summary>
internal sealed class JournalRecordFormatter : IMessagePackFormatter<JournalRecord?>
{
    /// <summary>The number of fields this version writes.</summary>
    public const int FieldCount = 11;

    public void Serialize(ref MessagePackWriter writer, JournalRecord? value, MessagePackSerializerOptions options)
    {
        if (value is null)
        {
            writer.WriteNil();
            return;
        }

        writer.WriteArrayHeader(FieldCount);
        writer.Write(value.PersistenceId);
        writer.Write(value.SequenceNr);
        writer.Write(value.Ordering);
        writer.Write(value.Timestamp);
        writer.Write(value.WriterGuid);
        writer.Write(value.Manifest);
        writer.Write(value.SerializerId);
        writer.Write(value.SerializerManifest);
        writer.Write(value.Payload);
        writer.WriteArrayHeader(value.Tags.Count);
        foreach (var tag in value.Tags)
        {
            writer.Write(tag);
        }

        writer.Write(value.DeletedTo);
    }

    public JournalRecord? Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
    {
        if (reader.TryReadNil())
        {
            return null;
        }

        var count = reader.ReadArrayHeader();
        if (count < FieldCount)
        {
            throw new MessagePackSerializationException($"A journal record has {count} fields; expected at least {FieldCount}.");
        }

        var persistenceId = reader.ReadString() ?? string.Empty;
        var sequenceNr = reader.ReadInt64();
        var ordering = reader.ReadInt64();
        var timestamp = reader.ReadInt64();
        var writerGuid = reader.ReadString() ?? string.Empty;
        var manifest = reader.ReadString() ?? string.Empty;
        var serializerId = reader.ReadInt32();
        var serializerManifest = reader.ReadString() ?? string.Empty;
        var payload = reader.ReadBytes()?.ToArray() ?? [];
        var tagCount = reader.ReadArrayHeader();
        var tags = tagCount == 0 ? [] : new string[tagCount];
        for (var i = 0; i < tagCount; i++)
        {
            tags[i] = reader.ReadString() ?? string.Empty;
        }

        var deletedTo = reader.ReadInt64();
        for (var i = FieldCount; i < count; i++)
        {
            reader.Skip();
        }

        return new JournalRecord
        {
            PersistenceId = persistenceId,
            SequenceNr = sequenceNr,
            Ordering = ordering,
            Timestamp = timestamp,
            WriterGuid = writerGuid,
            Manifest = manifest,
            SerializerId = serializerId,
            SerializerManifest = serializerManifest,
            Payload = payload,
            Tags = tags,
            DeletedTo = deletedTo,
        };
    }
}
