using System.Buffers.Binary;
using System.Text.Json;
using Stellar.Store.Codecs;

namespace Stellar.Store.Format;

/// <summary>
/// The store's manifest: format version, codecs, encryption parameters and key check, and per collection its
/// id, types and chain of shards. Replaced atomically (temp file, fsync, rename) on every change.
/// <code>
/// 00-03 [u32] magic "STLM"
/// 04-07 [u32] format version
/// 08-11 [u32] body length N
/// 12..  [N]   body: UTF-8 JSON
/// ..+4  [u32] CRC32C over every byte before it
/// </code>
/// </summary>
internal sealed class Manifest
{
    public const string FileName = "MANIFEST";
    public const uint Magic = 0x4D4C5453; // "STLM"
    public const int CurrentFormatVersion = 1;
    private const int PrefixLength = 12;

    private static readonly JsonSerializerOptions JsonOptions = new() { WriteIndented = true };

    public int FormatVersion { get; set; } = CurrentFormatVersion;

    /// <summary>The compressor id of new blocks (0: none, 1: LZ4).</summary>
    public byte Compression { get; set; }

    /// <summary>Key derivation parameters and key check; null for a plain store.</summary>
    public EncryptionInfo? Encryption { get; set; }

    public List<ManifestCollection> Collections { get; set; } = new();

    public byte[] Serialize()
    {
        var body = JsonSerializer.SerializeToUtf8Bytes(this, JsonOptions);
        var bytes = new byte[PrefixLength + body.Length + 4];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(4), FormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), body.Length);
        body.CopyTo(bytes.AsSpan(PrefixLength));
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(PrefixLength + body.Length), Crc32C.Compute(bytes.AsSpan(0, PrefixLength + body.Length)));
        return bytes;
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
        if (bodyLength < 0 || bodyLength != bytes.Length - PrefixLength - 4)
        {
            throw new CorruptStoreException(path, "the manifest's length field does not match the file");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[(PrefixLength + bodyLength)..]) != Crc32C.Compute(bytes[..(PrefixLength + bodyLength)]))
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

        manifest.Check(path);
        return manifest;
    }

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
            if (!CollectionName.IsValid(collection.Name) || !names.Add(collection.Name) || collection.Id == 0 || !ids.Add(collection.Id)
                || collection.KeyType is null || collection.ValueType is null)
            {
                throw new CorruptStoreException(path, "a collection in the manifest has a missing, invalid or repeated name or id, or no types");
            }

            if (collection.Shards is null || collection.Shards.Any(id => id == 0 || id >= collection.NextShardId) || collection.Shards.Distinct().Count() != collection.Shards.Count)
            {
                throw new CorruptStoreException(path, $"the shard list of collection '{collection.Name}' is missing or names ids that are zero, repeated or never handed out");
            }
        }
    }
}
