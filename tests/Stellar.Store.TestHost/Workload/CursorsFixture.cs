namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The content of the committed cursors fixture store: a collection of <see cref="Items"/> items written one by one,
/// and two named cursors of its change feed, each acknowledged after a known item, written once by a build whose cursor
/// records hold only a position (the TestHost's <c>fixture-cursors</c> verb) and opened by every later build.
/// </summary>
public static class CursorsFixture
{
    /// <summary>The collection the fixture writes.</summary>
    public const string CollectionName = "items";

    /// <summary>Items 1 to this many, each one upsert, in order.</summary>
    public const int Items = 20;

    /// <summary>The cursors, and the item each one acknowledged last.</summary>
    public static readonly IReadOnlyList<(string Cursor, int LastItem)> Cursors = [("analytics", 9), ("bots", 15)];

    /// <summary>The options the fixture is written with.</summary>
    public static StoreOptions Options() => new() { Durability = Durability.Fsync, CompactionThreshold = 0 };

    /// <summary>Item <paramref name="id"/>.</summary>
    public static WorkloadItem Item(int id) => new(id, Task: 0, Step: id, Payload: $"item {id}");
}
