namespace Stellar.Store.Engine;

/// <summary>
/// A compaction's request to the collection's writer, queued like a write so that it runs in the writer's order:
/// <see cref="Begin"/> seals the active shard and pins the version to copy, the finish swaps the output in.
/// </summary>
internal sealed record CompactionStep(CompactionRun Run, bool Begin);
