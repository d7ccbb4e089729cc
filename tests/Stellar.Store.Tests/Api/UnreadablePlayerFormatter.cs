using MessagePack;
using MessagePack.Formatters;
using MessagePack.Resolvers;

namespace Stellar.Store.Tests.Api;

/// <summary>
/// A game's formatter for <see cref="Player"/> that writes as the default one does and cannot read: a type's serializer
/// that throws while a collection loads.
/// </summary>
public sealed class UnreadablePlayerFormatter : IMessagePackFormatter<Player>
{
    /// <summary>Serializer options with this formatter in front of the standard resolvers.</summary>
    public static MessagePackSerializerOptions Options { get; } =
        MessagePackSerializerOptions.Standard.WithResolver(CompositeResolver.Create([new UnreadablePlayerFormatter()], [StandardResolver.Instance]));

    public void Serialize(ref MessagePackWriter writer, Player value, MessagePackSerializerOptions options) =>
        StandardResolver.Instance.GetFormatterWithVerify<Player>().Serialize(ref writer, value, options);

    public Player Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options) =>
        throw new MessagePackSerializationException("This game's players cannot be read back.");
}
