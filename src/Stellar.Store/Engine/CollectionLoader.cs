using System.Diagnostics;
using System.Runtime.ExceptionServices;
using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// Rebuilds a collection at open from the blocks its shard chain verified: blocks are decoded (authenticated,
/// decompressed, deserialized) in parallel, then applied strictly in sequence order, and the result is published as
/// one version. A block that fails to decode throws <see cref="CorruptBlockException"/> naming file and offset.
/// </summary>
/// <remarks>Thread safety: runs once, before the collection's writer starts.</remarks>
internal sealed class CollectionLoader<TKey, TValue>
    where TKey : notnull
{
    /// <summary>The version a loaded collection starts at.</summary>
    public const long LoadVersion = 1;

    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly int _parallelism;
    private readonly int _largeValueBytes;

    public CollectionLoader(ShardChain chain, BlockCodec codec, int parallelism, int largeValueBytes)
    {
        _chain = chain;
        _codec = codec;
        _parallelism = parallelism;
        _largeValueBytes = largeValueBytes;
    }

    /// <summary>Applies every block to <paramref name="map"/> and <paramref name="ledger"/>, publishes <see cref="LoadVersion"/>, and returns the key count.</summary>
    public long Load(VersionedMap<TKey, TValue> map, ShardUsageLedger ledger)
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
        catch (AggregateException e) when (e.InnerExceptions.FirstOrDefault(x => x is CorruptBlockException) is { } corrupt)
        {
            // The caller is promised the block's file and offset, not Parallel's wrapper.
            ExceptionDispatchInfo.Throw(corrupt);
        }

        var latest = new Dictionary<TKey, DecodedRecord>();
        foreach (var records in decoded)
        {
            foreach (var record in records)
            {
                latest[record.Key] = record;
                ledger.Add(record.ShardId, record.Size, live: false);
            }
        }

        long count = 0;
        foreach (var (key, record) in latest)
        {
            if (!record.Deleted)
            {
                map.Apply(key, LoadVersion, record.Value, deleted: false, record.ShardId, record.Size, record.Location);
                ledger.MarkLive(record.ShardId, record.Size);
                count++;
            }
        }

        map.Publish(LoadVersion, count);
        return count;
    }

    private DecodedRecord[] DecodeBlock(in ScannedBlock block)
    {
        var path = _chain.PathOf(block.ShardId);
        var raw = _codec.Decode(_chain.ReadBlock(block), block.Header, _chain.SaltOf(block.ShardId), path, block.Offset);
        var records = new DecodedRecord[CountRecords(raw, block.Header.RecordCount, path, block.Offset)];
        var position = 0;
        try
        {
            for (var i = 0; i < records.Length; i++)
            {
                var parsed = RecordFormat.TryRead(raw, ref position, out RecordExtent record);
                Debug.Assert(parsed, "CountRecords walked these same bytes");

                // Slices of the array, so MessagePack reads without copying.
                var key = RecordSerializer<TKey>.Deserialize(raw.AsMemory(record.KeyOffset, record.KeyLength));
                var value = raw.AsMemory(record.ValueOffset, record.ValueLength);
                TValue? inMemory = default;
                ValueLocation? location = null;
                if (record.Kind == RecordKind.Put && record.ValueLength > _largeValueBytes)
                {
                    // Checked now, read again on demand: a large value that does not decode is corruption found at open.
                    RecordSerializer<TValue>.Deserialize(value);
                    location = new ValueLocation(block.ShardId, block.Offset, block.Header.BlockLength, record.ValueOffset, record.ValueLength);
                }
                else if (record.Kind == RecordKind.Put)
                {
                    inMemory = RecordSerializer<TValue>.Deserialize(value);
                }

                records[i] = new DecodedRecord(key, inMemory, record.Kind == RecordKind.Delete, block.ShardId, record.Length, location);
            }
        }
        catch (MessagePackSerializationException e)
        {
            throw new CorruptBlockException(path, block.Offset, $"a record does not decode as {typeof(TKey).Name} -> {typeof(TValue).Name}", e);
        }

        Debug.Assert(position == raw.Length, "CountRecords found no bytes after the last record");
        return records;
    }

    /// <summary>
    /// The number of records in <paramref name="raw"/>, which must be <paramref name="stated"/>: counted from the
    /// bytes (a walk over the record lengths, nothing allocated) before an array is sized, so a resealed header
    /// cannot make a block cost more memory than its records.
    /// </summary>
    private static int CountRecords(byte[] raw, uint stated, string path, long offset)
    {
        var position = 0;
        var count = 0;
        while (position < raw.Length && count < stated)
        {
            if (!RecordFormat.TryRead(raw, ref position, out RecordExtent _))
            {
                throw new CorruptBlockException(path, offset, $"record {count} of {stated} is malformed");
            }

            count++;
        }

        if (count != stated)
        {
            throw new CorruptBlockException(path, offset, $"the header states {stated} records but the block holds {count}");
        }

        if (position != raw.Length)
        {
            throw new CorruptBlockException(path, offset, "the block has bytes after its last record");
        }

        return count;
    }

    private readonly record struct DecodedRecord(TKey Key, TValue? Value, bool Deleted, uint ShardId, int Size, ValueLocation? Location);
}
