using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Inspection;

/// <summary>
/// A read-only view of a store directory for the <c>stellar</c> tool: the manifest (authenticated with the store's
/// key when it is encrypted), and every block of every collection read and checked without stopping at damage. It
/// writes nothing, creates nothing and cuts nothing: a torn tail that an open would cut is reported as one.
/// </summary>
/// <remarks>
/// <para>While it is open it holds the store's lock when the store has a lock file (a server writing to the store
/// would change the files under the read), so a store that is open elsewhere fails with
/// <see cref="StoreLockedException"/>. A lock file that cannot be opened for writing (a read-only copy) is read
/// without the lock.</para>
/// <para>Thread safety: one thread at a time.</para>
/// </remarks>
internal sealed class StoreInspector : IDisposable
{
    private readonly Manifest _manifest;
    private readonly AesGcmBlockCipher? _cipher;
    private readonly BlockCodec _codec;
    private readonly FileLock? _lock;

    private StoreInspector(string directory, Manifest manifest, AesGcmBlockCipher? cipher, FileLock? storeLock)
    {
        Directory = directory;
        _manifest = manifest;
        _cipher = cipher;
        _lock = storeLock;
        _codec = new BlockCodec(null, new Lz4Compressor(), cipher);
    }

    /// <summary>The store directory's full path.</summary>
    public string Directory { get; }

    /// <summary>The manifest's format version, as found on disk.</summary>
    public int FormatVersion => _manifest.FormatVersion;

    /// <summary>The manifest's generation, as found on disk.</summary>
    public ulong Generation => _manifest.Generation;

    /// <summary>The compressor id new blocks are written with (0: none, 1: LZ4).</summary>
    public byte Compression => _manifest.Compression;

    /// <summary>How the store's key is derived (<see cref="EncryptionInfo.RawKdf"/> or a passphrase KDF); null for a plain store.</summary>
    public string? Kdf => _manifest.Encryption?.Kdf;

    /// <summary>Every collection the manifest lists, the store's own ones included.</summary>
    public IReadOnlyList<ManifestCollection> Collections => _manifest.Collections;

    /// <summary>
    /// Reads the manifest of the store at <paramref name="directory"/> and unlocks it with <paramref name="key"/> or
    /// <paramref name="passphrase"/> (neither for a plain store).
    /// </summary>
    /// <exception cref="CorruptStoreException">The directory holds no manifest, or a damaged one.</exception>
    /// <exception cref="WrongKeyException">The key or passphrase does not match the store's encryption.</exception>
    /// <exception cref="IncompatibleFormatException">A newer format wrote the store.</exception>
    /// <exception cref="StoreLockedException">The store is open elsewhere.</exception>
    public static StoreInspector Open(string directory, byte[]? key, string? passphrase)
    {
        directory = Path.GetFullPath(directory);
        var manifestPath = Path.Combine(directory, StoreFileNames.Manifest);
        if (!File.Exists(manifestPath))
        {
            throw new CorruptStoreException(manifestPath, "there is no manifest: the directory is not a Stellar.Store store");
        }

        var storeLock = TryLock(directory);
        var keyCopy = KeyMaterial.CopyKey(key);
        byte[]? masterKey = null;
        try
        {
            var manifest = Manifest.Parse(File.ReadAllBytes(manifestPath), manifestPath);
            masterKey = ManifestStore.Unlock(manifest, keyCopy, passphrase, directory, manifestPath);
            KeyMaterial.Zero(manifest.MacKey);
            var cipher = masterKey is null ? null : new AesGcmBlockCipher(masterKey);
            return new StoreInspector(directory, manifest, cipher, storeLock);
        }
        catch
        {
            storeLock?.Dispose();
            throw;
        }
        finally
        {
            KeyMaterial.Zero(keyCopy);
            KeyMaterial.Zero(masterKey);
        }
    }

    /// <summary>The full path of a shard of <paramref name="collection"/>.</summary>
    public string ShardPath(ManifestCollection collection, uint shardId) =>
        Path.Combine(Directory, StoreFileNames.Shard(collection.Id, shardId));

    /// <summary>
    /// Reads every shard of <paramref name="collection"/>, oldest first, and returns its blocks and bad stretches in
    /// replay order. A shard the manifest lists but the directory lacks is one bad stretch at offset 0.
    /// </summary>
    /// <param name="collection">One of <see cref="Collections"/>.</param>
    /// <param name="keepRecords">Whether good blocks keep their records; without them only their count is checked.</param>
    public List<InspectedBlock> ReadCollection(ManifestCollection collection, bool keepRecords)
    {
        ArgumentNullException.ThrowIfNull(collection);
        var blocks = new List<InspectedBlock>();
        ulong lastSequence = 0;
        for (var i = 0; i < collection.Shards.Count; i++)
        {
            var shardId = collection.Shards[i];
            var path = ShardPath(collection, shardId);
            collection.ShardDetails.TryGetValue(shardId, out var details);
            if (!File.Exists(path))
            {
                blocks.Add(new InspectedBlock(path, shardId, 0, 0, null, [], null, "the manifest lists this shard but the file is missing"));
                continue;
            }

            var isActive = i == collection.Shards.Count - 1 && details is not { IsSealed: true };
            blocks.AddRange(new ShardInspector(_codec, collection.Id, keepRecords).Read(path, shardId, details, isActive, ref lastSequence));
        }

        return blocks;
    }

    /// <summary>Releases the lock and zeroes the key material.</summary>
    public void Dispose()
    {
        _cipher?.Dispose();
        _lock?.Dispose();
    }

    private static FileLock? TryLock(string directory)
    {
        var lockPath = Path.Combine(directory, StoreFileNames.Lock);
        if (!File.Exists(lockPath))
        {
            return null;
        }

        try
        {
            return FileLock.Acquire(lockPath, directory);
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }
}
