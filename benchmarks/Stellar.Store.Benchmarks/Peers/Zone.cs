using MessagePack;
using Stellar.Store.Benchmarks.Model;
using ZoneTree;
using ZoneTree.Comparers;
using ZoneTree.Options;
using ZoneTree.Serializers;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>
/// ZoneTree 2 (an LSM tree) with int keys and MessagePack values, write-ahead log in its <c>Sync</c> mode: each
/// write is appended to the log file and flushed to the OS before <c>Upsert</c> returns, not fsynced (the
/// <c>os-write</c> promise). A null value is the tombstone, set explicitly so that deletes work whatever the default.
/// </summary>
public static class Zone
{
    /// <summary>
    /// Opens (or creates) the tree in <paramref name="directory"/>. <paramref name="bulkLoad"/> turns the log off
    /// (<c>WriteAheadLogMode.None</c>), ZoneTree's advice for data that can be rebuilt: a load is then made durable by
    /// evicting it to a disk segment at the end (<see cref="EvictToDisk"/>), not record by record.
    /// </summary>
    public static IZoneTree<int, SmallRecord> Open(string directory, bool bulkLoad = false) => new ZoneTreeFactory<int, SmallRecord>()
        .SetDataDirectory(directory)
        .SetComparer(new Int32ComparerAscending())
        .SetKeySerializer(new Int32Serializer())
        .SetValueSerializer(new RecordSerializer())
        .SetIsDeletedDelegate(static (in int _, in SmallRecord value) => value is null)
        .SetMarkValueDeletedDelegate(static (ref SmallRecord value) => value = null!)
        .ConfigureWriteAheadLogOptions(o => o.WriteAheadLogMode = bulkLoad ? WriteAheadLogMode.None : WriteAheadLogMode.Sync)
        .OpenOrCreate();

    /// <summary>Moves everything in memory to a disk segment and waits for it.</summary>
    public static void EvictToDisk(IZoneTree<int, SmallRecord> tree)
    {
        using var maintainer = tree.CreateMaintainer();
        maintainer.EvictToDisk();
        maintainer.WaitForBackgroundThreads();
    }

    /// <summary>Moves everything in memory to disk segments and closes the tree, so the next open starts from disk.</summary>
    public static void EvictAndClose(IZoneTree<int, SmallRecord> tree)
    {
        EvictToDisk(tree);
        tree.Dispose();
    }

    private sealed class RecordSerializer : ISerializer<SmallRecord>
    {
        public SmallRecord Deserialize(Memory<byte> bytes) => MessagePackSerializer.Deserialize<SmallRecord>(bytes)!;

        public Memory<byte> Serialize(in SmallRecord entry) => MessagePackSerializer.Serialize(entry);
    }
}
