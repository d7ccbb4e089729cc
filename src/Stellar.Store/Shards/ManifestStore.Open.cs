using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// The open of a <see cref="ManifestStore"/>: reading the manifest (or creating one), unlocking and authenticating an
/// encrypted store's, and refusing a manifest relabelled to shed its signature.
/// </summary>
/// <remarks>Thread safety: the open runs before the store is shared; <see cref="Unlock"/> is stateless.</remarks>
internal sealed partial class ManifestStore
{
    /// <summary>
    /// Reads the manifest in <paramref name="storage"/>, or creates one when the directory holds none, and unlocks it
    /// with the key or passphrase of <paramref name="options"/>; returns in <paramref name="masterKey"/> the store's
    /// master key (null for a plain store), which the caller zeroes. A new manifest is written at once (signed, if the
    /// store is encrypted); one of an older format only by <see cref="CompleteOpen"/>, once
    /// the open has verified what it lists, so that a manifest the open refuses is never rewritten or re-signed.
    /// </summary>
    /// <exception cref="WrongKeyException">The key or passphrase does not match the store's encryption.</exception>
    /// <exception cref="CorruptStoreException">The manifest is damaged, or missing while shard files are there.</exception>
    /// <exception cref="IncompatibleFormatException">The manifest was written by a newer format.</exception>
    public static ManifestStore Open(IStorage storage, string directory, StoreOptions options, out byte[]? masterKey)
    {
        masterKey = null;
        var path = Path.Combine(directory, StoreFileNames.Manifest);
        var exists = storage.Exists(StoreFileNames.Manifest);
        var key = KeyMaterial.CopyKey(options.EncryptionKey);
        Manifest? manifest = null;
        try
        {
            if (exists)
            {
                manifest = Manifest.Parse(storage.ReadAllBytes(StoreFileNames.Manifest), path);
                masterKey = Unlock(manifest, key, options.EncryptionPassphrase, directory, path);
                if (manifest.IsUnsigned)
                {
                    RefuseShardHeaders(storage, path);
                }
            }
            else
            {
                // Shards without a manifest are a damaged store, not an empty one: a new manifest would hide their
                // data, and the first write would overwrite the first shard.
                if (storage.List().Any(StoreFileNames.HasShardExtension))
                {
                    throw new CorruptStoreException(path, "the manifest is missing but the directory holds shard files");
                }

                manifest = new Manifest();
                if (key is not null || options.EncryptionPassphrase is not null)
                {
                    (manifest.Encryption, masterKey) = KeyMaterial.Create(key, options.EncryptionPassphrase, options.PassphraseIterations);
                    manifest.MacKey = Manifest.DeriveMacKey(masterKey);
                }
            }

            var store = new ManifestStore(storage, path, manifest, options.Compression);
            if (!exists)
            {
                store.CompleteOpen();
            }

            return store;
        }
        catch
        {
            KeyMaterial.Zero(manifest?.MacKey);
            throw;
        }
        finally
        {
            KeyMaterial.Zero(key);
        }
    }

    /// <summary>
    /// Derives the master key of a parsed manifest's store from <paramref name="key"/> or <paramref name="passphrase"/>
    /// and authenticates the manifest with it; null for a plain store. Also the tool's read-only reader's unlock.
    /// </summary>
    internal static byte[]? Unlock(Manifest manifest, byte[]? key, string? passphrase, string directory, string path)
    {
        if (manifest.Encryption is null)
        {
            return key is not null || passphrase is not null
                ? throw new WrongKeyException($"Store '{directory}' is not encrypted, but an encryption key or passphrase was given.")
                : null;
        }

        byte[] masterKey;
        try
        {
            masterKey = KeyMaterial.Unlock(manifest.Encryption, key, passphrase);
        }
        catch (InvalidDataException e)
        {
            throw new CorruptStoreException(path, $"the manifest's encryption parameters are damaged: {e.Message}", e);
        }

        var macKey = Manifest.DeriveMacKey(masterKey);
        try
        {
            manifest.Authenticate(macKey, path);
            return masterKey;
        }
        catch
        {
            KeyMaterial.Zero(macKey);
            KeyMaterial.Zero(masterKey);
            throw;
        }
    }

    /// <summary>
    /// Refuses an unsigned manifest of an encrypted store when a shard file in the directory, listed or not, has a shard
    /// header: format 1 wrote none, so such a shard was written by format 2 or later, whose manifest was signed, and this
    /// one was relabelled format 1 to shed its MAC (leaving out every shard hides none of them). Checked before any
    /// shard is scanned, cut or deleted.
    /// </summary>
    private static void RefuseShardHeaders(IStorage storage, string path)
    {
        Span<byte> magic = stackalloc byte[sizeof(uint)];
        foreach (var name in storage.List().Where(n => StoreFileNames.TryParseShard(n, out _, out _)).Order(StringComparer.Ordinal))
        {
            using var file = storage.OpenRead(name);
            if (file.ReadAt(0, magic) == magic.Length && System.Buffers.Binary.BinaryPrimitives.ReadUInt32LittleEndian(magic) == ShardHeader.Magic)
            {
                throw new CorruptStoreException(path, Manifest.DowngradedMessage($"its shard {name} has a shard header"));
            }
        }
    }
}
