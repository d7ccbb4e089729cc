using Akka.Configuration;

namespace Stellar.Store.Persistence;

/// <summary>A plugin's HOCON block, read and checked once when the plugin starts.</summary>
internal sealed record PluginSettings(string Path, Durability Durability, Compression Compression, byte[]? EncryptionKey, string? EncryptionPassphrase, string Collection)
{
    /// <summary>Reads <paramref name="config"/> (the plugin's block, with the defaults behind it).</summary>
    /// <exception cref="ConfigurationException">A setting is missing or not one of its allowed values; the message names it.</exception>
    public static PluginSettings From(Config config, string pluginId)
    {
        ArgumentNullException.ThrowIfNull(config);
        var path = config.GetString("path", string.Empty);
        if (string.IsNullOrWhiteSpace(path))
        {
            throw new ConfigurationException($"{pluginId}.path is not set: give the directory of the store.");
        }

        var durability = config.GetString("durability", "write-through") switch
        {
            "buffered" => Durability.Buffered,
            "write-through" => Durability.WriteThrough,
            "fsync" => Durability.Fsync,
            var other => throw new ConfigurationException($"{pluginId}.durability is '{other}'; expected buffered, write-through or fsync."),
        };
        var compression = config.GetString("compression", "lz4") switch
        {
            "none" => Compression.None,
            "lz4" => Compression.Lz4,
            var other => throw new ConfigurationException($"{pluginId}.compression is '{other}'; expected none or lz4."),
        };
        var keyText = config.GetString("encryption-key", string.Empty);
        var passphrase = config.GetString("encryption-passphrase", string.Empty);
        byte[]? key = null;
        if (keyText.Length > 0)
        {
            try
            {
                key = Convert.FromBase64String(keyText);
            }
            catch (FormatException e)
            {
                throw new ConfigurationException($"{pluginId}.encryption-key is not base64: give the 32-byte key in base64.", e);
            }
        }

        if (key is not null && passphrase.Length > 0)
        {
            throw new ConfigurationException($"{pluginId} sets both encryption-key and encryption-passphrase; set one.");
        }

        var collection = config.GetString("collection", string.Empty);
        if (string.IsNullOrWhiteSpace(collection))
        {
            throw new ConfigurationException($"{pluginId}.collection is empty.");
        }

        // The directory's one spelling: plugins that name it with a trailing separator or a "." share its store, rather
        // than the second failing on the first one's lock.
        string directory;
        try
        {
            directory = System.IO.Path.TrimEndingDirectorySeparator(System.IO.Path.GetFullPath(path));
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            throw new ConfigurationException($"{pluginId}.path is not a valid path: {e.Message}", e);
        }

        return new PluginSettings(directory, durability, compression, key, passphrase.Length > 0 ? passphrase : null, collection);
    }

    /// <summary>Whether a store opened with these settings may serve <paramref name="other"/> too.</summary>
    public bool OpensSameStoreAs(PluginSettings other) =>
        Durability == other.Durability
        && Compression == other.Compression
        && EncryptionPassphrase == other.EncryptionPassphrase
        && (EncryptionKey ?? []).AsSpan().SequenceEqual(other.EncryptionKey ?? []);
}
