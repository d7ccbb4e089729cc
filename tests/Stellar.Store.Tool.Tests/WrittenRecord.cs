namespace Stellar.Store.Tool.Tests;

/// <summary>
/// A player a test wrote, and where the block that holds it lies in its shard file: measured from the file's length
/// before and after the write (one awaited write is one block), not from the store's own reading of it.
/// </summary>
public sealed record WrittenRecord(Player Player, string ShardFile, long Start, long End);
