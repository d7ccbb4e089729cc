using System.Buffers.Binary;
using System.Security.Cryptography;
using Stellar.Store.Format;

namespace Stellar.Store.Tests;

/// <summary>
/// Reads and rewrites manifest files byte by byte, as someone editing a store's files would (see docs/format.md):
/// magic, version, body length, JSON body, a MAC when signed, CRC32C.
/// </summary>
internal static class ManifestSurgery
{
    private const int Prefix = 12;

    /// <summary>The JSON body of a manifest file.</summary>
    public static byte[] Body(byte[] manifest) => manifest.AsSpan(Prefix, BinaryPrimitives.ReadInt32LittleEndian(manifest.AsSpan(8))).ToArray();

    /// <summary>
    /// The manifest with <paramref name="body"/> in place of its body, resealed: signed with <paramref name="macKey"/>
    /// (an HMAC-SHA256 after the body) when one is given, as the holder of the store's key could, and checksummed.
    /// </summary>
    public static byte[] Reseal(byte[] manifest, byte[] body, byte[]? macKey)
    {
        var macLength = macKey is null ? 0 : 32;
        var bytes = new byte[Prefix + body.Length + macLength + 4];
        manifest.AsSpan(0, 8).CopyTo(bytes);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), body.Length);
        body.CopyTo(bytes.AsSpan(Prefix));
        var end = Prefix + body.Length;
        if (macKey is not null)
        {
            HMACSHA256.HashData(macKey, bytes.AsSpan(0, end), bytes.AsSpan(end, macLength));
            end += macLength;
        }

        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(end), Crc32C.Compute(bytes.AsSpan(0, end)));
        return bytes;
    }
}
