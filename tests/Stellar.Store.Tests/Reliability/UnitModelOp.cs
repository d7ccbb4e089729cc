namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// One step of <see cref="UnitModelTests"/>: a single write, an atomic batch of one collection, or a unit across
/// collections; or a compaction (no writes). Its writes name (collection, key, value): a null value deletes. The keys of
/// one step are distinct, and no two steps run at once touch the same key, so each step's outcome is its own.
/// </summary>
internal sealed record UnitModelOp(UnitModelOp.Kind What, IReadOnlyList<UnitModelWrite> Writes, bool Rejected, int Compact = -1)
{
    public enum Kind
    {
        Single,
        Batch,
        Unit,
        Compaction,
    }
}

/// <summary>One write of a <see cref="UnitModelOp"/>: insert, update, upsert or delete of a key in a collection.</summary>
internal sealed record UnitModelWrite(int Collection, int Key, UnitModelWrite.Kind What, UnitItem? Value)
{
    public enum Kind
    {
        Insert,
        Update,
        Upsert,
        Delete,
    }
}
