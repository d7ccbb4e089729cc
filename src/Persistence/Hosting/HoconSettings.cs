using System.Globalization;
using System.Text;
using Akka.Hosting;

namespace Stellar.Store.Persistence.Hosting;

/// <summary>Writes the settings the journal and the snapshot store share as HOCON lines of their plugin block.</summary>
internal static class HoconSettings
{
    public static void Append(StringBuilder sb, string path, Durability durability, Compression compression, IReadOnlyList<byte>? key, string? passphrase, string collection)
    {
        if (string.IsNullOrWhiteSpace(path))
        {
            throw new ArgumentException("Set Path: the directory of the store.", nameof(path));
        }

        var durabilityText = durability switch
        {
            Durability.Buffered => "buffered",
            Durability.WriteThrough => "write-through",
            Durability.Fsync => "fsync",
            _ => throw new ArgumentOutOfRangeException(nameof(durability), durability, "Not a durability mode."),
        };
        sb.AppendLine(CultureInfo.InvariantCulture, $"path = {path.ToHocon()}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"durability = {durabilityText}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"compression = {(compression == Compression.None ? "none" : "lz4")}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"encryption-key = {(key is null ? string.Empty : Convert.ToBase64String([.. key])).ToHocon()}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"encryption-passphrase = {(passphrase ?? string.Empty).ToHocon()}");
        sb.AppendLine(CultureInfo.InvariantCulture, $"collection = {collection.ToHocon()}");
    }
}
