namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The content of the committed fixture stores: a fixed, seeded history of inserts, updates, deletes, atomic
/// batches, large values and a compaction, written once by an older build (the TestHost's <c>fixture</c> verb) and
/// opened by every later build, so that a format change cannot silently stop reading stores already on players' disks.
/// </summary>
/// <remarks>
/// <see cref="Expected"/> replays the same history into a plain dictionary: the oracle the fixture test compares
/// the opened store with, independent of the store's code.
/// </remarks>
public static class FormatFixture
{
    /// <summary>The collection every fixture writes.</summary>
    public const string CollectionName = "fixture";

    /// <summary>Keys of the history.</summary>
    public const int Keys = 400;

    /// <summary>Values written in the second phase (after the compaction) are large enough to be kept on disk.</summary>
    public const int LargePayloadLength = 20_000;

    /// <summary>The options a fixture is written with: small shards so that the history spans several.</summary>
    public static StoreOptions Options(bool encrypted) => new()
    {
        Durability = Durability.Fsync,
        Compression = encrypted ? Compression.Lz4 : Compression.None,
        EncryptionKey = encrypted ? WorkloadOptions.EncryptionKey() : null,
        MaxShardBytes = WorkloadOptions.ShardBytes,
        CompactionThreshold = 0,
    };

    /// <summary>The first phase: every key inserted, then every third updated, then every fifth deleted.</summary>
    public static IEnumerable<(bool Delete, WorkloadItem Item)> BeforeCompaction()
    {
        for (var id = 1; id <= Keys; id++)
        {
            yield return (false, Item(id, step: 0));
        }

        for (var id = 3; id <= Keys; id += 3)
        {
            yield return (false, Item(id, step: 1));
        }

        for (var id = 5; id <= Keys; id += 5)
        {
            yield return (true, Item(id, step: 1));
        }
    }

    /// <summary>The second phase, after a compaction: atomic batches of three, one of them holding a large value.</summary>
    public static IEnumerable<(bool Delete, WorkloadItem Item)[]> AfterCompaction()
    {
        for (var id = 7; id + 2 <= Keys; id += 40)
        {
            yield return
            [
                (false, Item(id, step: 2)),
                (false, Item(id + 1, step: 2, large: true)),
                (true, Item(id + 2, step: 2)),
            ];
        }
    }

    /// <summary>The state after the whole history, replayed into a dictionary.</summary>
    public static Dictionary<int, WorkloadItem> Expected()
    {
        var state = new Dictionary<int, WorkloadItem>();
        void Apply((bool Delete, WorkloadItem Item) op)
        {
            if (op.Delete)
            {
                state.Remove(op.Item.Id);
            }
            else
            {
                state[op.Item.Id] = op.Item;
            }
        }

        foreach (var op in BeforeCompaction())
        {
            Apply(op);
        }

        foreach (var batch in AfterCompaction())
        {
            foreach (var op in batch)
            {
                Apply(op);
            }
        }

        return state;
    }

    private static WorkloadItem Item(int id, int step, bool large = false)
    {
        var length = large ? LargePayloadLength : 16 + (id * 37 % 300);
        var payload = string.Create(length, (id, step), static (span, s) =>
        {
            for (var i = 0; i < span.Length; i++)
            {
                span[i] = (char)('a' + ((s.id * 31 + s.step * 7 + i) % 26));
            }
        });
        return new WorkloadItem(id, Task: 0, step, payload);
    }
}
