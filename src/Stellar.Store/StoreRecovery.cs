using System.Diagnostics;
using Stellar.Store.Codecs;
using Stellar.Store.Diagnostics;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store;

/// <summary>
/// The open of a store directory, before any collection is used: the lock, the manifest (and the key check), every
/// listed shard found and verified, then the files no manifest names handled. Everything it made is released when
/// it throws.
/// </summary>
internal static class StoreRecovery
{
    /// <summary>What an open hands to the store it opened; the store owns all of it from then on.</summary>
    public sealed record Opened(IDisposable Lock, ManifestStore Manifest, BlockCodec Codec, AesGcmBlockCipher? Cipher, Dictionary<string, ShardChain> Chains, RecoveryReport Report)
    {
        /// <summary>Closes what the open took (the shards' files, the manifest, the cipher, the lock), for a store that could not be made from it.</summary>
        public void Release()
        {
            foreach (var chain in Chains.Values)
            {
                chain.Dispose();
            }

            Manifest.Close();
            Cipher?.Dispose();
            Lock.Dispose();
        }
    }

    public static Opened Open(string path, IStorage storage, StoreOptions options, StoreDiagnostics diagnostics)
    {
        var stopwatch = Stopwatch.StartNew();
        var storeLock = storage.AcquireLock();
        AesGcmBlockCipher? cipher = null;
        ManifestStore? manifest = null;
        var chains = new Dictionary<string, ShardChain>(StringComparer.Ordinal);

        // The master key lives only while the store opens: the cipher keeps its own copy, and it is zeroed on every
        // way out of here.
        byte[]? masterKey = null;
        try
        {
            manifest = ManifestStore.Open(storage, path, options, out masterKey);
            cipher = masterKey is null ? null : new AesGcmBlockCipher(masterKey);
            var codec = new BlockCodec(options.Compression == Compression.Lz4 ? new Lz4Compressor() : null, new Lz4Compressor(), cipher);
            long blocks = 0, truncated = 0;

            // The first checkpoint of this process has no copy of its own of the active shards' bytes written before it
            // to link: sealed at their next write, the shards it links cost nothing, and it copies only later blocks.
            var hasCheckpoints = storage.FilePath(StoreFileNames.Manifest) is not null && StellarStore.ListCheckpoints(path).Count > 0;
            var truncatedShards = new List<string>();
            var removed = new List<string>();
            foreach (var entry in manifest.Collections)
            {
                var chain = new ShardChain(storage, manifest, entry.Id, options.MaxShardBytes, options.Durability, diagnostics.Collection(entry.Name));
                chains[entry.Name] = chain;
                chain.Scan(sealActive: cipher is not null);
                if (hasCheckpoints)
                {
                    chain.SealActiveAtNextWrite();
                }

                blocks += chain.Blocks.Count;
                truncated += chain.TruncatedBytes;
                truncatedShards.AddRange(chain.TruncatedShards);
            }

            // Only now that every listed shard of every collection was found and verified: a store that refuses to
            // open must still hold every file it held, whichever manifest a repair would need, and its manifest as it
            // was (an older one is not upgraded, nor an unsigned one signed, before it passed every check).
            manifest.CompleteOpen();
            foreach (var chain in chains.Values)
            {
                chain.CutTornTail();
                chain.RemoveObsoleteFiles();
                removed.AddRange(chain.RemovedFiles);
            }

            var ignored = manifest.AdoptDirectory();
            var report = new RecoveryReport(blocks, truncated, truncatedShards, ignored, removed, stopwatch.Elapsed) { ManifestGeneration = manifest.OpenedGeneration };
            return new Opened(storeLock, manifest, codec, cipher, chains, report);
        }
        catch
        {
            foreach (var chain in chains.Values)
            {
                chain.Dispose();
            }

            manifest?.Close();
            cipher?.Dispose();
            storeLock.Dispose();
            throw;
        }
        finally
        {
            KeyMaterial.Zero(masterKey);
        }
    }
}
