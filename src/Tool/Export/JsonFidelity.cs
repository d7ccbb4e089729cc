using MessagePack;

namespace Stellar.Store.Tool.Export;

/// <summary>
/// Tells whether MessagePack's JSON conversion loses something of a value: an extension value (a <c>DateTime</c> is
/// a timestamp extension) becomes a string, binary (a <c>byte[]</c>) a base64 string whose text the game reads back
/// as the bytes, and a map key that is not a string (a <c>Dictionary&lt;int, …&gt;</c>) a
/// quoted one, and a float that is not a number or infinite, which JSON has no number for, a string too: an import
/// reads them back as strings that the game's types no longer read.
/// </summary>
internal static class JsonFidelity
{
    /// <summary>Whether <paramref name="bytes"/> (one MessagePack value) holds an extension value, binary, a map key that is not a string, or a float that is not finite.</summary>
    public static bool IsLossy(ReadOnlyMemory<byte> bytes)
    {
        var reader = new MessagePackReader(bytes);
        return IsLossy(ref reader);
    }

    private static bool IsLossy(ref MessagePackReader reader)
    {
        switch (reader.NextMessagePackType)
        {
            case MessagePackType.Extension or MessagePackType.Binary:
                reader.Skip();
                return true;
            case MessagePackType.Float:
                return !double.IsFinite(reader.ReadDouble());
            case MessagePackType.Array:
                var items = reader.ReadArrayHeader();
                for (var i = 0; i < items; i++)
                {
                    if (IsLossy(ref reader))
                    {
                        return true;
                    }
                }

                return false;
            case MessagePackType.Map:
                var entries = reader.ReadMapHeader();
                for (var i = 0; i < entries; i++)
                {
                    if (reader.NextMessagePackType != MessagePackType.String)
                    {
                        return true;
                    }

                    reader.Skip();
                    if (IsLossy(ref reader))
                    {
                        return true;
                    }
                }

                return false;
            default:
                reader.Skip();
                return false;
        }
    }
}
