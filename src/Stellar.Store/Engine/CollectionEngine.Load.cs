using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

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
        catch (AggregateException e) when (e.InnerExceptions.FirstOrDefault(x => x is CorruptBlockException) is { } corrupt)
        {
            // The caller is promised the block's file and offset, not Parallel's wrapper.
            ExceptionDispatchInfo.Throw(corrupt);
        }

        var latest = new Dictionary<TKey, DecodedRecord>();
        long stored = 0, live = 0;
        foreach (var records in decoded)
        {
            foreach (var record in records)
            {
                latest[record.Key] = record;
                Usage(record.ShardId).Total += record.Size;
                stored += record.Size;
            }
        }

        const long LoadVersion = 1;
        long count = 0;
        foreach (var (key, record) in latest)
        {
            if (!record.Deleted)
            {
                Map.Apply(key, LoadVersion, record.Value, deleted: false, record.ShardId, record.Size, record.Location);
                Usage(record.ShardId).Live += record.Size;
                live += record.Size;
                count++;
            }
        }

        Volatile.Write(ref _storedBytes, stored);
        Volatile.Write(ref _liveBytes, live);

        _version = LoadVersion;
        _stagedCount = count;
        Map.Publish(LoadVersion, count);
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
                var start = position;
                var parsed = RecordFormat.TryRead(raw, ref position, out var kind, out _, out _);
                Debug.Assert(parsed, "CountRecords walked these same bytes");

                // Slices of the array, so MessagePack reads without copying.
                var memory = raw.AsMemory(start, position - start);
                var keyLength = BinaryPrimitives.ReadInt32LittleEndian(raw.AsSpan(start + 1));
                var key = RecordSerializer<TKey>.Deserialize(memory.Slice(5, keyLength));
                var valueLength = memory.Length - RecordFormat.PutOverhead - keyLength;
                TValue? value = default;
                ValueLocation? location = null;
                if (kind == RecordKind.Put && valueLength > _largeValueBytes)
                {
                    // Checked now, read again on demand: a large value that does not decode is corruption found at open.
                    RecordSerializer<TValue>.Deserialize(memory[(9 + keyLength)..]);
                    location = new ValueLocation(block.ShardId, block.Offset, block.Header.BlockLength, start + 9 + keyLength, valueLength);
                }
                else if (kind == RecordKind.Put)
                {
                    value = RecordSerializer<TValue>.Deserialize(memory[(9 + keyLength)..]);
                }

                records[i] = new DecodedRecord(key, value, kind == RecordKind.Delete, block.ShardId, position - start, location);
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
            if (!RecordFormat.TryRead(raw, ref position, out _, out _, out _))
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

    /// <summary>
    /// The value of <paramref name="node"/>: from memory, or for a large value read from its block on disk (checksum
    /// and tag verified), retrying at the new place when a compaction moved it during the read. Any thread. Throws
    /// <see cref="RetiredShardException"/> when the node was not moved because it was already replaced at the
    /// compaction's pin: only an unpinned reader can hold such a node, and it reads the newest version instead.
    /// </summary>
    public TValue ReadValue(VersionNode<TValue> node)
    {
        while (true)
        {
            var location = node.Location;
            if (location is null)
            {
                return node.Value!;
            }

            try
            {
                var path = _chain.PathOf(location.ShardId);
                try
                {
                    return RecordSerializer<TValue>.Deserialize(ReadRawValue(location));
                }
                catch (MessagePackSerializationException e)
                {
                    throw new CorruptBlockException(path, location.BlockOffset, $"a large value does not decode as {typeof(TValue).Name}", e);
                }
            }
            catch (Exception e) when (e is ObjectDisposedException or IOException && !ReferenceEquals(location, node.Location))
            {
                // A compaction moved the value and retired its old shard meanwhile: read it where it is now.
            }
        }
    }

    /// <summary>The serialized bytes of a large value, read from its block on disk. Any thread.</summary>
    private ReadOnlyMemory<byte> ReadRawValue(ValueLocation location)
    {
        var (block, header) = _chain.ReadBlockAt(location);
        var raw = _codec.Decode(block, header, _chain.SaltOf(location.ShardId), _chain.PathOf(location.ShardId), location.BlockOffset);
        if (location.ValueOffset < 0 || location.ValueOffset + (long)location.ValueLength > raw.Length)
        {
            throw new CorruptBlockException(_chain.PathOf(location.ShardId), location.BlockOffset, "a large value lies outside its block");
        }

        return raw.AsMemory(location.ValueOffset, location.ValueLength);
    }

    private readonly record struct DecodedRecord(TKey Key, TValue? Value, bool Deleted, uint ShardId, int Size, ValueLocation? Location);
}
