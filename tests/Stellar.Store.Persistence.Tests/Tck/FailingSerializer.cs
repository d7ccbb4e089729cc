using System.Runtime.Serialization;
using Akka.Actor;
using Akka.Serialization;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>A serializer that fails on everything, as a serializer fails on a type it cannot handle.</summary>
public sealed class FailingSerializer(ExtendedActorSystem system) : Serializer(system)
{
    public override int Identifier => 667;

    public override bool IncludeManifest => false;

    public override byte[] ToBinary(object obj) => throw new SerializationException($"{obj?.GetType()} cannot be serialized");

    public override object FromBinary(byte[] bytes, Type type) => throw new SerializationException("nothing to deserialize");
}
