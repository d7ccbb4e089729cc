using System.Buffers;
using System.Buffers.Binary;
using MessagePack;
using MessagePack.Resolvers;

namespace Stellar.Store.Samples.GameServer.Protocol;

/// <summary>
/// The wire format: each message is a 4-byte little-endian length followed by that many bytes of MessagePack
/// (a <see cref="GameProtocol.Message"/> union). Frames over <see cref="MaxFrameBytes"/> end the connection.
/// </summary>
internal static class Framing
{
    public const int MaxFrameBytes = 256 * 1024;

    private static readonly MessagePackSerializerOptions Options =
        StandardResolver.Options.WithSecurity(MessagePackSecurity.UntrustedData);

    /// <summary>Encodes <paramref name="message"/> as one frame.</summary>
    public static byte[] Encode(GameProtocol.Message message)
    {
        var buffer = new ArrayBufferWriter<byte>(64);
        buffer.Advance(4); // room for the length, filled in below
        MessagePackSerializer.Serialize(buffer, message, Options);
        var frame = buffer.WrittenSpan.ToArray();
        BinaryPrimitives.WriteInt32LittleEndian(frame, frame.Length - 4);
        return frame;
    }

    /// <summary>Reads one message; null when the stream ended cleanly between frames.</summary>
    /// <exception cref="InvalidDataException">A frame is too long, cut short, or not a message.</exception>
    public static async Task<GameProtocol.Message?> ReadAsync(Stream stream, CancellationToken cancellationToken)
    {
        var header = new byte[4];
        var read = await stream.ReadAtLeastAsync(header, 4, throwOnEndOfStream: false, cancellationToken).ConfigureAwait(false);
        if (read == 0)
        {
            return null;
        }

        if (read < 4)
        {
            throw new InvalidDataException("The connection ended inside a frame header.");
        }

        var length = BinaryPrimitives.ReadInt32LittleEndian(header);
        if (length is <= 0 or > MaxFrameBytes)
        {
            throw new InvalidDataException($"Frame length {length} is outside 1..{MaxFrameBytes}.");
        }

        var payload = new byte[length];
        if (await stream.ReadAtLeastAsync(payload, length, throwOnEndOfStream: false, cancellationToken).ConfigureAwait(false) < length)
        {
            throw new InvalidDataException("The connection ended inside a frame.");
        }

        try
        {
            return MessagePackSerializer.Deserialize<GameProtocol.Message>(payload, Options, cancellationToken)
                ?? throw new InvalidDataException("A frame held nil instead of a message.");
        }
        catch (MessagePackSerializationException e)
        {
            throw new InvalidDataException("A frame is not a valid message: " + e.Message, e);
        }
    }
}
