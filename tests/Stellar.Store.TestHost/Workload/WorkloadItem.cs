using MessagePack;

namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The value the seeded workload writes: which task wrote it, at which step, and a payload whose size and
/// compressibility vary, so that blocks, groups and shard rolls vary too. Shared (as source) by the TestHost and
/// the tests, so both sides name the same type in the store's manifest.
/// </summary>
[MessagePackObject]
public sealed record WorkloadItem(
    [property: Key(0)] int Id,
    [property: Key(1)] int Task,
    [property: Key(2)] int Step,
    [property: Key(3)] string Payload);
