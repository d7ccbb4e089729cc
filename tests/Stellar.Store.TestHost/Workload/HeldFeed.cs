namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// What the <c>feed-hold</c> verb writes, shared (as source) with the test that kills it: item <c>step</c> goes to key
/// <c>step % Keys</c>, one upsert per step, so that the reopened store's contents follow from the last step on disk.
/// </summary>
public static class HeldFeed
{
    /// <summary>The collection written.</summary>
    public const string CollectionName = "held";

    /// <summary>The cursor that holds compaction and lags behind the writes.</summary>
    public const string Cursor = "lagging";

    /// <summary>Keys written round robin: every key is overwritten often, so compaction has garbage to drop.</summary>
    public const int Keys = 97;

    /// <summary>The bound of the cursor's hold: far more than the verb writes, so the hold is never released.</summary>
    public const long MaxHeldBytes = 1L << 30;

    /// <summary>The options the store is opened with: small shards, so that compactions have shards to leave alone.</summary>
    public static StoreOptions Options() => new() { Durability = Durability.WriteThrough, MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };

    /// <summary>The item of step <paramref name="step"/>, with a payload of a size that varies by step.</summary>
    public static WorkloadItem Item(int step) => new(step % Keys, Task: 0, Step: step, Payload: new string((char)('a' + (step % 26)), 200 + (step * 37 % 700)));
}
