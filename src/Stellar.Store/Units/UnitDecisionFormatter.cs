using MessagePack;
using MessagePack.Formatters;
using Stellar.Store.Actors;

namespace Stellar.Store.Units;

/// <summary>
/// Writes a <see cref="UnitDecision"/> as a MessagePack array: <c>[session, round]</c> when settled, which is byte for
/// byte the record format 3 stores held (a <c>(Guid, long)</c> tuple), and <c>[session, round, parts]</c> with each part
/// block as <c>[collection, shard, offset]</c> while recovery may still need to read them. Reads both.
/// </summary>
/// <remarks>Thread safety: stateless; any thread.</remarks>
internal sealed class UnitDecisionFormatter : IMessagePackFormatter<UnitDecision>
{
    private const int PartFields = 3;

    public void Serialize(ref MessagePackWriter writer, UnitDecision value, MessagePackSerializerOptions options)
    {
        var guid = options.Resolver.GetFormatterWithVerify<Guid>();
        writer.WriteArrayHeader(value.Parts is null ? 2 : 3);
        guid.Serialize(ref writer, value.Session, options);
        writer.Write(value.Round);
        if (value.Parts is not { } parts)
        {
            return;
        }

        writer.WriteArrayHeader(parts.Length);
        foreach (var part in parts)
        {
            writer.WriteArrayHeader(PartFields);
            writer.Write(part.Collection);
            writer.Write(part.Shard);
            writer.Write(part.Offset);
        }
    }

    public UnitDecision Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
    {
        var fields = reader.ReadArrayHeader();
        if (fields is not (2 or 3))
        {
            throw new MessagePackSerializationException($"A unit log record has {fields} fields; it has 2 or 3.");
        }

        options.Security.DepthStep(ref reader);
        try
        {
            var session = options.Resolver.GetFormatterWithVerify<Guid>().Deserialize(ref reader, options);
            var round = reader.ReadInt64();
            if (fields == 2)
            {
                return new UnitDecision(session, round, null);
            }

            // ReadArrayHeader refuses a count larger than the bytes left, so a crafted count allocates no more than the record holds.
            var count = reader.ReadArrayHeader();
            var parts = new PartBlock[count];
            for (var i = 0; i < count; i++)
            {
                if (reader.ReadArrayHeader() != PartFields)
                {
                    throw new MessagePackSerializationException($"A unit log record's part block has other than {PartFields} fields.");
                }

                parts[i] = new PartBlock(reader.ReadUInt32(), reader.ReadUInt32(), reader.ReadInt64());
            }

            return new UnitDecision(session, round, parts);
        }
        finally
        {
            reader.Depth--;
        }
    }
}
