using MessagePack;
using Stellar.Store.Benchmarks.Model;
using ZoneTree;
using ZoneTree.Comparers;
using ZoneTree.Options;
using ZoneTree.Serializers;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>
/// ZoneTree 2 (an LSM tree) with int keys and MessagePack values, write-ahead log in its <c>Sync</c> mode: each
/// write goes to the log file's stream, not fsynced per write.
/// </summary>
public static class Zone
{
    /// <summary>Opens (or creates) the tree in <paramref name="directory"/>.</summary>
    public static IZoneTree<int, SmallRecord> Open(string directory) => new ZoneTreeFactory<int, SmallRecord>()
        .SetDataDirectory(directory)
        .SetComparer(new Int32ComparerAscending())
        .SetKeySerializer(new Int32Serializer())
        .SetValueSerializer(new RecordSerializer())
        .ConfigureWriteAheadLogOptions(o => o.WriteAheadLogMode = WriteAheadLogMode.Sync)
        .OpenOrCreate();

    /// <summary>Moves everything in memory to disk segments and closes the tree, so the next open starts from disk.</summary>
    public static void EvictAndClose(IZoneTree<int, SmallRecord> tree)
    {
        using (var maintainer = tree.CreateMaintainer())
        {
            maintainer.EvictToDisk();
            maintainer.WaitForBackgroundThreads();
        }

        tree.Dispose();
    }

    private sealed class RecordSerializer : ISerializer<SmallRecord>
    {
        public SmallRecord Deserialize(Memory<byte> bytes) => MessagePackSerializer.Deserialize<SmallRecord>(bytes);

        public Memory<byte> Serialize(in SmallRecord entry) => MessagePackSerializer.Serialize(entry);
    }
}
