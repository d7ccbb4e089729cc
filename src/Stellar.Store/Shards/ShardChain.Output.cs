using Stellar.Store.Format;

namespace Stellar.Store.Shards;

/// <summary>
/// The output shards of a compaction, written off the writer. Each is written under a temporary name
/// (<see cref="StoreFileNames.Compacting"/>), flushed, then renamed; no manifest names it before the compaction's swap, so
/// until then its files are this chain's alone to remove.
/// </summary>
internal sealed partial class ShardChain
{
    /// <summary>
    /// Off the writer: writes output shard <paramref name="shardId"/> under its temporary name (replacing what an
    /// earlier try left there): its header, then <paramref name="blocks"/> in order, flushed to disk. Returns the
    /// offset of each block in the file; <paramref name="sealedLength"/> is the file's length.
    /// </summary>
    public long[] WriteOutput(uint shardId, IReadOnlyList<(byte[] Bytes, int Length)> blocks, CancellationToken cancellationToken, out long sealedLength)
    {
        var temp = StoreFileNames.Compacting(_collectionId, shardId);
        var offsets = new long[blocks.Count];
        _storage.Delete(temp);
        using var file = _storage.Open(temp);
        file.Append(OutputHeader(shardId).ToArray());
        for (var b = 0; b < blocks.Count; b++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            offsets[b] = file.Length;
            file.Append(blocks[b].Bytes.AsSpan(0, blocks[b].Length));
        }

        Sync(file, shardId);
        sealedLength = file.Length;
        return offsets;
    }

    /// <summary>
    /// Off the writer: gives a written output shard its final name. A failure is still a clean one: the manifest
    /// does not name the output yet, so <see cref="DeleteOutputs"/> may remove it under either name.
    /// </summary>
    public void PublishOutput(uint shardId)
    {
        _storage.Rename(StoreFileNames.Compacting(_collectionId, shardId), StoreFileNames.Shard(_collectionId, shardId));
    }

    /// <summary>
    /// Off the writer, only for a compaction whose swap was never tried: removes its output files under either name.
    /// </summary>
    public void DeleteOutputs(IEnumerable<uint> outputIds)
    {
        foreach (var shardId in outputIds)
        {
            _storage.Delete(StoreFileNames.Compacting(_collectionId, shardId));
            _storage.Delete(StoreFileNames.Shard(_collectionId, shardId));
        }
    }
}
