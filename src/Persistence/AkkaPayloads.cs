using Akka.Actor;
using AkkaSerialization = Akka.Serialization.Serialization;

namespace Stellar.Store.Persistence;

/// <summary>
/// Events and snapshots through Akka's own serialization, with the system's transport information set as Akka's SQL
/// plugins do, so that payloads holding <see cref="IActorRef"/>s serialize to full paths and resolve back.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal static class AkkaPayloads
{
    /// <summary>Serializes <paramref name="payload"/> with the serializer Akka binds to its type.</summary>
    /// <returns>The bytes, the serializer's id and its manifest for the payload (empty when it uses none).</returns>
    public static (byte[] Bytes, int SerializerId, string Manifest) Serialize(ActorSystem system, object payload)
    {
        var serializer = system.Serialization.FindSerializerFor(payload);
        return AkkaSerialization.WithTransport((ExtendedActorSystem)system, () =>
        {
            var bytes = serializer.ToBinary(payload);
            return (bytes, serializer.Identifier, AkkaSerialization.ManifestFor(serializer, payload) ?? string.Empty);
        });
    }

    /// <summary>Deserializes what <see cref="Serialize"/> wrote.</summary>
    public static object Deserialize(ActorSystem system, byte[] bytes, int serializerId, string manifest) =>
        AkkaSerialization.WithTransport((ExtendedActorSystem)system, () => system.Serialization.Deserialize(bytes, serializerId, manifest));
}
