namespace Stellar.Store.Benchmarks.Inserts;

/// <summary>Which write the concurrent callers make.</summary>
public enum WriteOp
{
    /// <summary>Insert new keys.</summary>
    Insert,

    /// <summary>Upsert keys that already exist (an update of each player's record).</summary>
    Upsert,
}
