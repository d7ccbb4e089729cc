using System.Buffers.Binary;

namespace Stellar.Store.Format;

/// <summary>
/// Names the cross-collection round a <see cref="BlockFlags.UnitPart"/> block belongs to: the session that wrote it
/// (a random id each open of the store draws) and the round's number in that session. It opens the block's raw
/// payload, before the records, so it is compressed, encrypted and checksummed with them. Little-endian:
/// <code>
/// 00-15 [16] session id (a GUID in its little-endian byte form)
/// 16-23 [u64] round, 1 for the session's first
/// </code>
/// A round is committed when the unit log records, for its session, a round at least as high (rounds of a session
/// are decided in order), and recovery applies a part block only then.
/// </summary>
internal readonly record struct UnitTag(Guid Session, ulong Round)
{
    /// <summary>The bytes the tag takes in front of a part block's records.</summary>
    public const int Length = 24;

    private const int SessionOffset = 0;
    private const int RoundOffset = 16;

    /// <summary>Writes the tag into the first <see cref="Length"/> bytes of <paramref name="destination"/>.</summary>
    public void Write(Span<byte> destination)
    {
        Session.TryWriteBytes(destination[SessionOffset..RoundOffset]);
        BinaryPrimitives.WriteUInt64LittleEndian(destination[RoundOffset..Length], Round);
    }

    /// <summary>Reads the tag in front of a part block's raw payload; null when the payload is too short to hold one.</summary>
    public static UnitTag? Read(ReadOnlySpan<byte> source) => source.Length < Length
        ? null
        : new UnitTag(new Guid(source[SessionOffset..RoundOffset]), BinaryPrimitives.ReadUInt64LittleEndian(source[RoundOffset..Length]));
}
