using System.Buffers;
using MessagePack;
using MessagePack.Resolvers;

namespace Stellar.Store.Codecs;

/// <summary>
/// MessagePack serialization of keys and values: <c>[MessagePackObject]</c> types by their attributes, plain
/// classes and records by the contractless resolver. Bytes read from disk are decoded under
/// <see cref="MessagePackSecurity.UntrustedData"/> limits.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal static class RecordSerializer<T>
{
    /// <summary>The options every key and value is written and read with (internal: the benchmarks' floor reads with them too).</summary>
    internal static readonly MessagePackSerializerOptions Options =
        ContractlessStandardResolver.Options.WithSecurity(MessagePackSecurity.UntrustedData);

    /// <summary>Fails with an <see cref="ArgumentException"/> naming <typeparamref name="T"/> when MessagePack cannot handle it.</summary>
    public static void EnsureSerializable(string role)
    {
        try
        {
            Options.Resolver.GetFormatterWithVerify<T>();
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            throw new ArgumentException($"The {role} type '{typeof(T)}' cannot be serialized by MessagePack: {e.GetBaseException().Message}", typeof(T).Name, e);
        }
    }

    /// <summary>Serializes <paramref name="value"/> into <paramref name="writer"/>; wraps failures with the type's name.</summary>
    public static void Serialize(IBufferWriter<byte> writer, T value)
    {
        try
        {
            MessagePackSerializer.Serialize(writer, value, Options);
        }
        catch (MessagePackSerializationException e)
        {
            throw new ArgumentException($"A value of type '{typeof(T)}' could not be serialized: {e.GetBaseException().Message}", nameof(value), e);
        }
    }

    /// <summary>
    /// Deserializes bytes from disk; throws <see cref="MessagePackSerializationException"/> when they do not decode, or
    /// decode to null: no write stores a null key or value, so a nil in a record is damage (or a crafted block), never
    /// a record to hand to a reader.
    /// </summary>
    public static T Deserialize(ReadOnlyMemory<byte> bytes)
    {
        var value = MessagePackSerializer.Deserialize<T>(bytes, Options);
        if (value is null)
        {
            throw new MessagePackSerializationException($"A stored {typeof(T).Name} is nil, which no write stores.");
        }

        return value;
    }

    /// <summary>A private copy of <paramref name="value"/> (for copy-on-read).</summary>
    public static T Copy(T value) => MessagePackSerializer.Deserialize<T>(MessagePackSerializer.Serialize(value, Options), Options);
}
