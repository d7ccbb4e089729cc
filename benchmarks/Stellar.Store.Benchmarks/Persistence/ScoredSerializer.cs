using System.Buffers.Binary;
using Akka.Actor;
using Akka.Serialization;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// A binary serializer for <see cref="Scored"/>, bound to it by HOCON in every row of the default run: the three
/// fields little-endian, 16 bytes. Akka.Persistence's documentation ("Custom serialization") binds persisted payloads
/// to a serializer of their own this way. Without a binding, Akka's default serializer for objects (Newtonsoft JSON)
/// takes several microseconds per small event each way, the same in every journal, which hides the journals' own
/// costs; the verb's <c>json</c> run measures that configuration.
/// </summary>
public sealed class ScoredSerializer(ExtendedActorSystem system) : Serializer(system)
{
    /// <summary>The serializer's id, unique in the actor system (Akka keeps ids up to 100 for itself).</summary>
    public const int Id = 7_301;

    /// <summary>The bytes of one event.</summary>
    public const int Size = 16;

    /// <inheritdoc />
    public override int Identifier => Id;

    /// <inheritdoc />
    public override bool IncludeManifest => false;

    /// <inheritdoc />
    public override byte[] ToBinary(object obj)
    {
        var e = obj as Scored ?? throw new ArgumentException($"{nameof(ScoredSerializer)} serializes {nameof(Scored)} only, not {obj?.GetType().Name ?? "null"}.", nameof(obj));
        var bytes = new byte[Size];
        BinaryPrimitives.WriteInt32LittleEndian(bytes, e.Player);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(4), e.Sequence);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(12), e.Points);
        return bytes;
    }

    /// <inheritdoc />
    public override object FromBinary(byte[] bytes, Type type)
    {
        ArgumentNullException.ThrowIfNull(bytes);
        if (bytes.Length != Size)
        {
            throw new ArgumentException($"A {nameof(Scored)} is {Size} bytes, not {bytes.Length}.", nameof(bytes));
        }

        return new Scored(BinaryPrimitives.ReadInt32LittleEndian(bytes), BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(4)), BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(12)));
    }
}
