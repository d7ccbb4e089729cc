using System.Buffers.Binary;
using System.Runtime.ExceptionServices;
using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;

namespace Stellar.Store.Engine;

internal sealed partial class CollectionEngine<TKey, TValue>
{
    /// <summary>
    /// Rebuilds the collection from the blocks verified at open: blocks are decoded (authenticated, decompressed,
    /// deserialized) in parallel, then applied strictly in sequence order, and the result is published as one
    /// version. A block that fails to decode throws <see cref="CorruptBlockException"/> naming file and offset.
    /// </summary>
    public void Load()
    {
        var blocks = _chain.Blocks;
        var decoded = new DecodedRecord[blocks.Count][];
        try
        {
            Parallel.For(0, blocks.Count, new ParallelOptions { MaxDegreeOfParallelism = _parallelism }, i =>
            {
                decoded[i] = DecodeBlock(blocks[i]);
            });
        }
        catch (AggregateException e) when (e.InnerExceptions.All(inner => inner is CorruptBlockException))
        {
            // The caller is promised a CorruptBlockException naming file and offset, not the wrapper of Parallel.For.
            ExceptionDispatchInfo.Capture(e.InnerExceptions[0]).Throw();
        }

        var latest = new Dictionary<TKey, DecodedRecord>();
        foreach (var records in decoded)
        {
            foreach (var record in records)
            {
                latest[record.Key] = record;
            }
        }

        const long LoadVersion = 1;
        long count = 0;
        foreach (var (key, record) in latest)
        {
            if (!record.Deleted)
            {
                Map.Apply(key, LoadVersion, record.Value, deleted: false, record.ShardId, record.Size);
                count++;
            }
        }

        _version = LoadVersion;
        _stagedCount = count;
        Map.Publish(LoadVersion, count);
    }

    private DecodedRecord[] DecodeBlock(in ScannedBlock block)
    {
        var path = _chain.PathOf(block.ShardId);
        var raw = _codec.Decode(_chain.ReadBlock(block), block.Header, path, block.Offset);
        var records = new DecodedRecord[block.Header.RecordCount];
        var position = 0;
        try
        {
            for (var i = 0; i < records.Length; i++)
            {
                var start = position;
                if (!RecordFormat.TryRead(raw, ref position, out var kind, out _, out _))
                {
                    throw new CorruptBlockException(path, block.Offset, $"record {i} of {records.Length} is malformed");
                }

                // Slices of the array, so MessagePack reads without copying.
                var memory = raw.AsMemory(start, position - start);
                var keyLength = BinaryPrimitives.ReadInt32LittleEndian(raw.AsSpan(start + 1));
                var key = RecordSerializer<TKey>.Deserialize(memory.Slice(5, keyLength));
                var value = kind == RecordKind.Put
                    ? RecordSerializer<TValue>.Deserialize(memory[(9 + keyLength)..])
                    : default;
                records[i] = new DecodedRecord(key, value, kind == RecordKind.Delete, block.ShardId, position - start);
            }
        }
        catch (MessagePackSerializationException e)
        {
            throw new CorruptBlockException(path, block.Offset, $"a record does not decode as {typeof(TKey).Name} -> {typeof(TValue).Name}", e);
        }

        if (position != raw.Length)
        {
            throw new CorruptBlockException(path, block.Offset, "the block has bytes after its last record");
        }

        return records;
    }

    private readonly record struct DecodedRecord(TKey Key, TValue? Value, bool Deleted, uint ShardId, int Size);
}
