using MessagePack;
using Stellar.Store.Actors;
using Stellar.Store.Codecs;
using Stellar.Store.Units;

namespace Stellar.Store.Tests.Units;

/// <summary>The unit log's records: format-3 stores' tuples still read, and the part blocks a decision names survive a round trip.</summary>
public sealed class UnitDecisionFormatTests
{
    [Fact]
    public void Deserialize_TheTupleAFormat3LogStored_ReadsASettledDecision()
    {
        var session = Guid.NewGuid();
        var bytes = MessagePackSerializer.Serialize((session, 42L), RecordSerializer.Default.Options);

        Assert.Equal(new UnitDecision(session, 42, null), RecordSerializer.Default.Deserialize<UnitDecision>(bytes));
    }

    [Fact]
    public void Serialize_ASettledDecision_WritesTheSameBytesAsAFormat3Tuple()
    {
        var session = Guid.NewGuid();

        Assert.Equal(
            MessagePackSerializer.Serialize((session, 7L), RecordSerializer.Default.Options),
            MessagePackSerializer.Serialize(new UnitDecision(session, 7, null), RecordSerializer.Default.Options));
    }

    [Fact]
    public void RoundTrip_ADecisionNamingPartBlocks_KeepsEveryBlock()
    {
        var decision = new UnitDecision(Guid.NewGuid(), 3, [new PartBlock(1, 2, 17), new PartBlock(4, uint.MaxValue, long.MaxValue)]);

        var read = RecordSerializer.Default.Deserialize<UnitDecision>(MessagePackSerializer.Serialize(decision, RecordSerializer.Default.Options));

        Assert.Equal(decision.Session, read.Session);
        Assert.Equal(decision.Round, read.Round);
        Assert.Equal(decision.Parts, read.Parts);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void Deserialize_ARecordWithAnotherNumberOfFields_IsRefused(int fields)
    {
        var bytes = MessagePackSerializer.Serialize(Enumerable.Range(0, fields).ToArray(), RecordSerializer.Default.Options);

        Assert.Throws<MessagePackSerializationException>(() => RecordSerializer.Default.Deserialize<UnitDecision>(bytes));
    }

    [Fact]
    public void Deserialize_APartCountLargerThanTheRecord_IsRefusedWithoutAllocatingIt()
    {
        var writer = new System.Buffers.ArrayBufferWriter<byte>();
        var w = new MessagePackWriter(writer);
        w.WriteArrayHeader(3);
        MessagePackSerializer.Serialize(ref w, Guid.NewGuid(), RecordSerializer.Default.Options);
        w.Write(1L);
        w.WriteArrayHeader(int.MaxValue);
        w.Flush();

        var refusal = Record.Exception(() => RecordSerializer.Default.Deserialize<UnitDecision>(writer.WrittenMemory));
        Assert.True(refusal is MessagePackSerializationException or EndOfStreamException, $"refused with {refusal?.GetType().Name ?? "nothing"}");
    }
}
