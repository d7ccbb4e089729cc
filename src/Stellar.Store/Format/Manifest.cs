using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text.Json;
using System.Text.Json.Serialization;
using Stellar.Store.Codecs;

namespace Stellar.Store.Format;

/// <summary>
/// The store's manifest: format version, generation, codecs, encryption parameters and key check, and per
/// collection its id, types and chain of shards. Replaced atomically (temp file, fsync, rename) on every change.
/// <code>
/// 00-03 [u32] magic "STLM"
/// 04-07 [u32] format version
/// 08-11 [u32] body length N
/// 12..  [N]   body: UTF-8 JSON
/// encrypted stores, format 2 and later:
/// ..+32 [32]  HMAC-SHA256 over bytes 00 to 12+N, keyed from the master key (see <see cref="MacKeyLabel"/>)
/// ..+4  [u32] CRC32C over every byte before it
/// </code>
/// The MAC makes an edited manifest of an encrypted store (a shard dropped from a chain, a sealed length or salt
/// changed, a collection removed) fail to open; the CRC catches accidents in every store. The generation grows by
/// one with every replace, so a caller who keeps it elsewhere can tell an older copy of the manifest from the latest.
/// Its file is <see cref="StoreFileNames.Manifest"/>; <see cref="Shards.ManifestStore"/> owns the one instance of an
/// open store and makes every change to it.
/// </summary>
internal sealed class Manifest
{
    public const uint Magic = 0x4D4C5453; // "STLM"
    public const int CurrentFormatVersion = 5;

    /// <summary>The HMAC-SHA256 key of the manifest is HKDF-SHA256(master key, info: this label).</summary>
    public const string MacKeyLabel = "stellar-store/manifest/v2";

    public const int MacLength = 32;
    private const int PrefixLength = 12;

    // The bytes a parsed manifest's MAC covers and the MAC itself, kept until Authenticate checks them.
    private byte[]? _signed;
    private byte[]? _mac;

    private static readonly JsonSerializerOptions JsonOptions = new() { WriteIndented = true };

    public int FormatVersion { get; set; } = CurrentFormatVersion;

    /// <summary>Grows by one with every replace of the manifest file.</summary>
    public ulong Generation { get; set; }

    /// <summary>The compressor id of new blocks (0: none, 1: LZ4).</summary>
    public byte Compression { get; set; }

    /// <summary>Key derivation parameters and key check; null for a plain store.</summary>
    public EncryptionInfo? Encryption { get; set; }

    public List<ManifestCollection> Collections { get; set; } = new();

    /// <summary>
    /// The key that signs and authenticates the manifest of an encrypted store (null for a plain one). Set once the
    /// master key is known; never serialized.
    /// </summary>
    [JsonIgnore]
    public byte[]? MacKey { get; set; }

    /// <summary>
    /// Whether the file read was an encrypted store's manifest without a MAC: only format 1 wrote one, so nothing but
    /// its format vouches for it until the store's first save signs it. Never serialized.
    /// </summary>
    [JsonIgnore]
    public bool IsUnsigned { get; private set; }

    /// <summary>Derives <see cref="MacKey"/> from the store's master key (pinned, so no copy is left behind).</summary>
    public static byte[] DeriveMacKey(ReadOnlySpan<byte> masterKey)
    {
        var key = GC.AllocateArray<byte>(MacLength, pinned: true);
        HKDF.DeriveKey(HashAlgorithmName.SHA256, masterKey, key, ReadOnlySpan<byte>.Empty, System.Text.Encoding.ASCII.GetBytes(MacKeyLabel));
        return key;
    }

    /// <summary>
    /// The file's bytes in the current format, one generation on: signed with <see cref="MacKey"/> when the store is
    /// encrypted. Advances <see cref="Generation"/>.
    /// </summary>
    public byte[] Serialize()
    {
        FormatVersion = CurrentFormatVersion;
        Generation++;
        var body = JsonSerializer.SerializeToUtf8Bytes(this, JsonOptions);
        var signed = Encryption is not null;
        if (signed && MacKey is null)
        {
            throw new InvalidOperationException("The manifest of an encrypted store cannot be written before its key is known.");
        }

        var macLength = signed ? MacLength : 0;
        var bytes = new byte[PrefixLength + body.Length + macLength + 4];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(4), FormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), body.Length);
        body.CopyTo(bytes.AsSpan(PrefixLength));
        var end = PrefixLength + body.Length;
        if (signed)
        {
            HMACSHA256.HashData(MacKey, bytes.AsSpan(0, end), bytes.AsSpan(end, MacLength));
            end += MacLength;
        }

        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(end), Crc32C.Compute(bytes.AsSpan(0, end)));
        return bytes;
    }

    /// <summary>
    /// Checks the MAC of a parsed manifest of an encrypted store with <paramref name="macKey"/> and keeps the key for
    /// later saves. A format-1 manifest has no MAC and passes (it is signed from its first save on): <see cref="Parse"/>
    /// already refused one whose body a format-1 build could not have written, and the open refuses one whose shards
    /// it could not have written, before anything is saved or deleted (see <see cref="IsUnsigned"/>).
    /// </summary>
    /// <exception cref="CorruptStoreException">The MAC does not match: the manifest was changed by someone without the key.</exception>
    public void Authenticate(byte[] macKey, string path)
    {
        if (_signed is not null && _mac is not null)
        {
            Span<byte> expected = stackalloc byte[MacLength];
            HMACSHA256.HashData(macKey, _signed, expected);
            if (!CryptographicOperations.FixedTimeEquals(expected, _mac))
            {
                throw new CorruptStoreException(path, "the manifest fails authentication: it was changed without the store's key");
            }
        }

        _signed = null;
        _mac = null;
        MacKey = macKey;
    }

    /// <summary>
    /// Parses a manifest; throws <see cref="IncompatibleFormatException"/> for a newer format and
    /// <see cref="CorruptStoreException"/> for anything damaged.
    /// </summary>
    public static Manifest Parse(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length < PrefixLength + 4 || BinaryPrimitives.ReadUInt32LittleEndian(bytes) != Magic)
        {
            throw new CorruptStoreException(path, "not a Stellar.Store manifest (bad magic or too short)");
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[4..]);
        var bodyLength = BinaryPrimitives.ReadInt32LittleEndian(bytes[8..]);
        var trailer = bytes.Length - PrefixLength - 4L - bodyLength;
        if (bodyLength < 0 || (trailer != 0 && (trailer != MacLength || version < 2)))
        {
            throw new CorruptStoreException(path, "the manifest's length field does not match the file");
        }

        var crcOffset = bytes.Length - 4;
        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[crcOffset..]) != Crc32C.Compute(bytes[..crcOffset]))
        {
            throw new CorruptStoreException(path, "manifest checksum mismatch");
        }

        if (version > CurrentFormatVersion || version < 1)
        {
            throw new IncompatibleFormatException(path, version, CurrentFormatVersion);
        }

        Manifest? manifest;
        try
        {
            manifest = JsonSerializer.Deserialize<Manifest>(bytes.Slice(PrefixLength, bodyLength), JsonOptions);
        }
        catch (JsonException e)
        {
            throw new CorruptStoreException(path, "the manifest body is not valid", e);
        }

        if (manifest is null || manifest.FormatVersion != version)
        {
            throw new CorruptStoreException(path, "the manifest body does not match its header");
        }

        // From format 2 on, an encrypted store's manifest is signed and a plain store's is not: a MAC that is
        // missing where it belongs (or present where it does not) is an edit, not an older format.
        if (version >= 2 && (trailer == MacLength) != (manifest.Encryption is not null))
        {
            throw new CorruptStoreException(path, manifest.Encryption is null
                ? "the manifest carries a MAC but describes a plain store"
                : "the manifest of an encrypted store carries no MAC");
        }

        if (trailer == MacLength)
        {
            manifest._signed = bytes[..(PrefixLength + bodyLength)].ToArray();
            manifest._mac = bytes.Slice(PrefixLength + bodyLength, MacLength).ToArray();
        }

        manifest.Check(path);
        manifest.IsUnsigned = manifest.Encryption is not null && trailer == 0;
        if (manifest.IsUnsigned)
        {
            manifest.RefuseLaterFormatFields(path);
        }

        return manifest;
    }

    /// <summary>
    /// The message of a refused unsigned manifest: an encrypted store's manifest is signed from format 2 on, so an
    /// unsigned one that shows anything of a later format was relabelled format 1 to shed its MAC.
    /// </summary>
    public static string DowngradedMessage(string evidence) =>
        $"the manifest says format 1, which had no MAC, but {evidence}, which format 1 never wrote: it looks downgraded by someone without the store's key";

    /// <summary>
    /// Refuses an unsigned manifest of an encrypted store whose body holds what only a later format writes: a
    /// generation and shard details (format 2), the unit log (format 3), a compaction mark, the cursors or kept shards (format 5).
    /// A genuine format-1 manifest has none of them (<c>Format/Fixtures/format1-encrypted</c>).
    /// </summary>
    private void RefuseLaterFormatFields(string path)
    {
        var evidence = Generation != 0 ? "it records a generation"
            : Collections.Find(c => c.ShardDetails.Count > 0) is { } detailed ? $"collection '{detailed.Name}' has shard details"
            : Collections.Find(c => c.CompactedThrough is not null) is { } compacted ? $"collection '{compacted.Name}' records what a compaction replaced"
            : Collections.Find(c => c.KeptShards is not null) is { } keeping ? $"collection '{keeping.Name}' records kept shards"
            : Collections.Find(c => !CollectionName.IsValid(c.Name)) is { } own ? $"it lists the store's own collection '{own.Name}'"
            : null;
        if (evidence is not null)
        {
            throw new CorruptStoreException(path, DowngradedMessage(evidence));
        }
    }

    private static bool IsValid(ManifestShard? shard) =>
        shard is not null
        && (shard.Salt is null || shard.Salt.Length == ShardHeader.SaltSize)
        && shard.SealedLength is null or >= 0
        && (shard.LastSequence is null || shard.SealedLength is not null);

    /// <summary>Refuses a body that parses as JSON but cannot describe a store, so that nothing later trips over it.</summary>
    private void Check(string path)
    {
        if (Collections is null || Collections.Contains(null!))
        {
            throw new CorruptStoreException(path, "the manifest's collection list is missing or has an empty entry");
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        var ids = new HashSet<uint>();
        foreach (var collection in Collections)
        {
            if (!CollectionName.IsValidInManifest(collection.Name) || !names.Add(collection.Name) || collection.Id == 0 || !ids.Add(collection.Id)
                || collection.KeyType is null || collection.ValueType is null)
            {
                throw new CorruptStoreException(path, "a collection in the manifest has a missing, invalid or repeated name or id, or no types");
            }

            if (collection.Shards is null || collection.Shards.Any(id => id == 0 || id >= collection.NextShardId) || collection.Shards.Distinct().Count() != collection.Shards.Count)
            {
                throw new CorruptStoreException(path, $"the shard list of collection '{collection.Name}' is missing or names ids that are zero, repeated or never handed out");
            }

            if (collection.KeptShards is { } kept && kept.Any(id => id == 0 || id >= collection.NextShardId || collection.Shards.Contains(id)))
            {
                throw new CorruptStoreException(path, $"the kept shards of collection '{collection.Name}' name ids that are zero, listed or never handed out");
            }

            if (collection.ShardDetails is null || collection.ShardDetails.Any(d => !collection.Shards.Contains(d.Key) || !IsValid(d.Value)))
            {
                throw new CorruptStoreException(path, $"the shard details of collection '{collection.Name}' are missing, name an unlisted shard or are malformed");
            }
        }
    }
}
