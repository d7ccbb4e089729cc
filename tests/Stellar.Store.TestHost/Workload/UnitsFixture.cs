namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The content of the committed units fixture store: a fixed history of writes across three collections
/// (<see cref="CollectionNames"/>), most of them units of <c>StellarStore.WriteAsync</c> that upsert, insert and delete
/// in two or three collections at once, with single-collection writes between them, written in two sessions. Written
/// once by an older build (the TestHost's <c>fixture-units</c> verb) and opened by every later build, so that a change
/// to the unit log (the store's own <c>$units</c> collection, which decides at open whether a unit's parts count)
/// cannot silently drop the units already in stores on players' disks.
/// </summary>
/// <remarks>
/// Every value is computed from its collection, key and step, with no random numbers, so the history is the same on
/// every runtime. <see cref="Expected"/> replays it into plain dictionaries: the oracle the fixture test compares the
/// opened store with, independent of the store's code. <see cref="Apply"/> refuses an insert of a present key and a
/// delete or update of a missing one, so the history cannot hold a write the store would reject.
/// </remarks>
public static class UnitsFixture
{
    /// <summary>The collections the history writes, by index: characters, the items they hold, and a ledger of trades.</summary>
    public static readonly string[] CollectionNames = ["characters", "items", "ledger"];

    /// <summary>Index of the characters collection in <see cref="CollectionNames"/>.</summary>
    public const int Characters = 0;

    /// <summary>Index of the items collection in <see cref="CollectionNames"/>.</summary>
    public const int Items = 1;

    /// <summary>Index of the ledger collection in <see cref="CollectionNames"/>.</summary>
    public const int Ledger = 2;

    /// <summary>The sessions the history is written in: the store is closed and opened again between them.</summary>
    public const int Sessions = 2;

    /// <summary>Units (writes across collections) in each session.</summary>
    public const int UnitsPerSession = 18;

    /// <summary>Characters, inserted before the first unit and upserted by units.</summary>
    public const int CharacterCount = 8;

    /// <summary>Items inserted before the first unit; unit u deletes item u.</summary>
    public const int StartingItems = Sessions * UnitsPerSession;

    /// <summary>Every twelfth unit gives a character an item this large, kept on disk rather than in memory.</summary>
    public const int LargePayloadLength = 20_000;

    /// <summary>The options the fixture is written with: no compaction, so every unit's parts stay in the shards as written.</summary>
    public static StoreOptions Options() => new()
    {
        Durability = Durability.Fsync,
        Compression = Compression.None,
        EncryptionKey = null,
        MaxShardBytes = WorkloadOptions.ShardBytes,
        CompactionThreshold = 0,
    };

    /// <summary>
    /// The steps of session <paramref name="session"/> (0 or 1), in order. A step that writes one collection is a
    /// single-collection write (one write, or an atomic batch of several); a step that writes two or three is a unit.
    /// </summary>
    public static IEnumerable<IReadOnlyList<(int Collection, WorkloadWrite Write)>> Session(int session)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(session);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(session, Sessions);
        if (session == 0)
        {
            yield return Enumerable.Range(1, CharacterCount).Select(id => Write(Characters, WorkloadWriteKind.Insert, id, step: 0)).ToArray();
            yield return Enumerable.Range(1, StartingItems).Select(id => Write(Items, WorkloadWriteKind.Insert, id, step: 0)).ToArray();
        }

        for (var u = (session * UnitsPerSession) + 1; u <= (session + 1) * UnitsPerSession; u++)
        {
            yield return Unit(u);
            if (u % 5 == 0)
            {
                yield return Between(u);
            }
        }
    }

    /// <summary>The state after the whole history: one dictionary per collection, by <see cref="CollectionNames"/> index.</summary>
    public static Dictionary<int, WorkloadItem>[] Expected()
    {
        var state = CollectionNames.Select(_ => new Dictionary<int, WorkloadItem>()).ToArray();
        for (var session = 0; session < Sessions; session++)
        {
            foreach (var step in Session(session))
            {
                Apply(state, step);
            }
        }

        return state;
    }

    /// <summary>Applies one step to a model of the collections.</summary>
    /// <exception cref="InvalidOperationException">The step inserts a present key, or updates or deletes a missing one.</exception>
    public static void Apply(Dictionary<int, WorkloadItem>[] state, IReadOnlyList<(int Collection, WorkloadWrite Write)> step)
    {
        ArgumentNullException.ThrowIfNull(state);
        ArgumentNullException.ThrowIfNull(step);
        foreach (var (collection, write) in step)
        {
            var records = state[collection];
            var present = records.ContainsKey(write.Key);
            if (write.Kind == WorkloadWriteKind.Insert ? present : !present && write.Kind != WorkloadWriteKind.Upsert)
            {
                throw new InvalidOperationException($"The history's {write.Kind} of key {write.Key} in '{CollectionNames[collection]}' would be rejected.");
            }

            if (write.Value is null)
            {
                records.Remove(write.Key);
            }
            else
            {
                records[write.Key] = write.Value;
            }
        }
    }

    /// <summary>
    /// An item of <paramref name="collection"/>, made from its key and step alone; <see cref="WorkloadItem.Task"/>
    /// holds the collection's index, so that a record that landed in the wrong collection does not compare equal.
    /// </summary>
    public static WorkloadItem Item(int collection, int id, int step, bool large = false)
    {
        var length = large ? LargePayloadLength : 8 + (((id * 37) + (step * 11)) % 200);
        var payload = string.Create(length, (collection, id, step), static (span, s) =>
        {
            for (var i = 0; i < span.Length; i++)
            {
                span[i] = (char)('a' + (((s.collection * 5) + (s.id * 31) + (s.step * 7) + i) % 26));
            }
        });
        return new WorkloadItem(id, Task: collection, step, payload);
    }

    /// <summary>
    /// Unit <paramref name="u"/>: a character's new state, a new ledger entry, the item it spent deleted; every fourth
    /// unit also gives out a new item (a large one every twelfth), every sixth deletes an old ledger entry, and every
    /// fifth leaves the characters alone (a unit of two collections).
    /// </summary>
    private static (int, WorkloadWrite)[] Unit(int u)
    {
        var writes = new List<(int, WorkloadWrite)>();
        if (u % 5 != 0)
        {
            writes.Add(Write(Characters, WorkloadWriteKind.Upsert, 1 + (u % CharacterCount), u));
        }

        writes.Add(Write(Items, WorkloadWriteKind.Delete, u, u));
        if (u % 4 == 0)
        {
            writes.Add(Write(Items, WorkloadWriteKind.Upsert, 100 + u, u, large: u % 12 == 0));
        }

        writes.Add(Write(Ledger, WorkloadWriteKind.Insert, u, u));
        if (u % 6 == 0)
        {
            writes.Add(Write(Ledger, WorkloadWriteKind.Delete, u - 5, u));
        }

        return writes.ToArray();
    }

    /// <summary>The single-collection write after unit <paramref name="u"/> (a multiple of five), in turn to each collection.</summary>
    private static (int, WorkloadWrite)[] Between(int u) => ((u / 5) % 3) switch
    {
        0 => [Write(Characters, WorkloadWriteKind.Update, 1, u)],
        1 => [Write(Items, WorkloadWriteKind.Insert, 200 + u, u), Write(Items, WorkloadWriteKind.Upsert, 100 + u - 1, u)],
        _ => [Write(Ledger, WorkloadWriteKind.Update, u, u)],
    };

    private static (int, WorkloadWrite) Write(int collection, WorkloadWriteKind kind, int key, int step, bool large = false) =>
        (collection, new WorkloadWrite(kind, key, kind == WorkloadWriteKind.Delete ? null : Item(collection, key, step, large)));
}
