using System.Buffers;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.ExceptionServices;
using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Engine;

/// <summary>
/// Rebuilds a collection at open from the blocks its shard chain verified: blocks are decoded (read into pooled
/// buffers, authenticated, decompressed, deserialized into the nodes the map will hold) in parallel on every core;
/// then one thread applies them strictly in sequence order into the presized map (a slot write per record: the
/// map's head table has one writer), so every key ends at its last record. The result is published as one version. A block that fails to decode throws <see cref="CorruptBlockException"/>
/// naming file and offset.
/// </summary>
/// <remarks>Thread safety: runs once, before the collection's writer starts.</remarks>
internal sealed class CollectionLoader<TKey, TValue>
    where TKey : notnull
{
    /// <summary>The version a loaded collection starts at.</summary>
    public const long LoadVersion = 1;

    /// <summary>The most keys a loaded map is sized for up front; beyond that it grows as it fills.</summary>
    private const int MaxPresizedKeys = 1 << 22;

    /// <summary>The fewest bytes a record takes: a delete of a one-byte key.</summary>
    private const int SmallestRecordBytes = RecordFormat.DeleteOverhead + 1;

    private readonly ShardChain _chain;
    private readonly BlockCodec _codec;
    private readonly int _parallelism;
    private readonly int _largeValueBytes;
    private readonly Func<UnitTag, bool> _decided;
    private readonly RecordSerializer _serializer;
    private long _undecided;
    private bool _expiring;

    /// <summary>A loader of <paramref name="chain"/>'s blocks; <paramref name="decided"/> says whether the round a part block names was committed: only then do its records count.</summary>
    public CollectionLoader(ShardChain chain, BlockCodec codec, RecordSerializer serializer, int parallelism, int largeValueBytes, Func<UnitTag, bool> decided)
    {
        _serializer = serializer;
        _chain = chain;
        _codec = codec;
        _parallelism = parallelism;
        _largeValueBytes = largeValueBytes;
        _decided = decided;
    }

    /// <summary>Part blocks the last load left out because the unit log holds no decision for their round.</summary>
    public long UndecidedBlocks => Interlocked.Read(ref _undecided);

    /// <summary>Whether a record that expires was read at the load (then the map's expiry index is built from the heads).</summary>
    public bool LoadedExpiring => Volatile.Read(ref _expiring);

    /// <summary>
    /// Keys to size the map for before the load: the records found at open, the most keys there can be. A header's
    /// record count is trusted only as far as the block's bytes on disk can hold records (a resealed header could
    /// otherwise make open reserve room for records that are not there); a block of well-compressed tiny records is
    /// undercounted, and the map grows as it fills.
    /// </summary>
    public static int CapacityFor(ShardChain chain)
    {
        long records = 0;
        foreach (var block in chain.Blocks)
        {
            records += Math.Min((long)block.Header.RecordCount, block.Header.BlockLength / SmallestRecordBytes);
        }

        // Bounded, so that a store of many overwrites of few keys does not reserve room for every overwrite.
        return (int)Math.Min(records, MaxPresizedKeys);
    }

    /// <summary>Applies every block to <paramref name="map"/> and <paramref name="ledger"/>, publishes <see cref="LoadVersion"/>, and returns the key count.</summary>
    public long Load(VersionedMap<TKey, TValue> map, ShardUsageLedger ledger)
    {
        var blocks = _chain.Blocks;
        var decoded = new DecodedBlock[blocks.Count];
        Run(() => SharedLoop.For(blocks.Count, _parallelism, i => decoded[i] = DecodeBlock(blocks[i])));

        // Every record counts as stored; those still readable at the end are marked live below.
        foreach (var block in decoded)
        {
            ledger.Add(block.ShardId, block.RecordBytes, live: false);
        }

        var (count, liveBytes) = Apply(map, decoded);
        foreach (var (shardId, bytes) in liveBytes)
        {
            if (bytes != 0)
            {
                ledger.MarkLive(shardId, bytes);
            }
        }

        Debug.Assert(count == map.ChainCount, "every key left in the map holds a value");
        map.Publish(LoadVersion, count);
        return count;
    }

    /// <summary>Runs a parallel step; the caller is promised a corrupt block's file and offset, not the loop's wrapper.</summary>
    private static void Run(Action step)
    {
        try
        {
            step();
        }
        catch (AggregateException e) when (e.InnerExceptions.FirstOrDefault(x => x is CorruptBlockException) is { } corrupt)
        {
            ExceptionDispatchInfo.Throw(corrupt);
        }
    }

    /// <summary>Applies every record in sequence order; returns the live keys and their record bytes per shard.</summary>
    private static (long Count, Dictionary<uint, long> LiveBytes) Apply(VersionedMap<TKey, TValue> map, DecodedBlock[] decoded)
    {
        var live = new Dictionary<uint, long>();
        long count = 0;
        foreach (var block in decoded)
        {
            for (var i = 0; i < block.Keys.Length; i++)
            {
                var node = block.Nodes[i];
                if (map.Load(block.Keys[i], node) is { } replaced)
                {
                    live[replaced.ShardId] -= replaced.Size;
                    count--;
                }

                if (node is not null)
                {
                    CollectionsMarshal.GetValueRefOrAddDefault(live, node.ShardId, out _) += node.Size;
                    count++;
                }
            }
        }

        return (count, live);
    }

    /// <summary>
    /// Decodes one block into its keys and the nodes the map will hold (null for a delete).
    /// The block is read into a pooled buffer, returned before this returns.
    /// </summary>
    private DecodedBlock DecodeBlock(in ScannedBlock block)
    {
        var path = _chain.PathOf(block.ShardId);
        var length = block.Header.BlockLength;
        var bytes = ArrayPool<byte>.Shared.Rent(length);
        byte[] raw;
        try
        {
            _chain.ReadBlock(block, bytes.AsSpan(0, length));
            raw = _codec.Decode(bytes.AsSpan(0, length), block.Header, _chain.SaltOf(block.ShardId), path, block.Offset);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(bytes);
        }

        var position = BlockRecords.Start(raw, block.Header.Flags, path, block.Offset, out var tag);
        if (tag is { } round && !_decided(round))
        {
            // A round whose decision never reached the unit log: its records count as stored, never as live.
            Interlocked.Increment(ref _undecided);
            return new DecodedBlock(block.ShardId, raw.Length - UnitTag.Length, [], []);
        }

        var count = BlockRecords.Count(raw, position, block.Header.RecordCount, path, block.Offset);
        var keys = new TKey[count];
        var nodes = new VersionNode<TValue>?[count];
        var recordBytes = 0;
        try
        {
            for (var i = 0; i < count; i++)
            {
                var parsed = RecordFormat.TryRead(raw, ref position, out RecordExtent record);
                Debug.Assert(parsed, "BlockRecords.Count walked these same bytes");

                // Slices of the array, so MessagePack reads without copying.
                keys[i] = _serializer.Deserialize<TKey>(raw.AsMemory(record.KeyOffset, record.KeyLength));
                recordBytes += record.Length;
                if (record.Kind != RecordKind.Put)
                {
                    continue;
                }

                var value = raw.AsMemory(record.ValueOffset, record.ValueLength);
                if (record.ExpiresAt != 0)
                {
                    Volatile.Write(ref _expiring, true);
                }

                var decoded = _serializer.Deserialize<TValue>(value);
                if (record.ValueLength > _largeValueBytes || !_serializer.WritesBack(decoded, value.Span))
                {
                    // Decoded now, read again on demand: a large value that does not decode is corruption found at open. A
                    // value the type does not write back as stored (written by another version of it, with members this one
                    // lacks) stays on disk too, so that a compaction copies its bytes instead of dropping those members.
                    var location = new ValueLocation(block.ShardId, block.Offset, block.Header.BlockLength, record.ValueOffset, record.ValueLength);
                    nodes[i] = VersionNode<TValue>.Create(LoadVersion, default, deleted: false, block.ShardId, record.Length, next: null, location, record.ExpiresAt);
                }
                else
                {
                    nodes[i] = VersionNode<TValue>.Create(LoadVersion, decoded, deleted: false, block.ShardId, record.Length, next: null, location: null, record.ExpiresAt);
                }
            }
        }
        catch (MessagePackSerializationException e)
        {
            throw new CorruptBlockException(path, block.Offset, $"a record does not decode as {typeof(TKey).Name} -> {typeof(TValue).Name}", e);
        }

        Debug.Assert(position == raw.Length, "BlockRecords.Count found no bytes after the last record");
        return new DecodedBlock(block.ShardId, recordBytes, keys, nodes);
    }

    /// <summary>The records of one block: keys, and the nodes to load (null: a delete).</summary>
    private readonly record struct DecodedBlock(uint ShardId, int RecordBytes, TKey[] Keys, VersionNode<TValue>?[] Nodes);
}
