namespace Stellar.Store.TestHost.Workload;

/// <summary>What one write of a <see cref="WorkloadOp"/> does.</summary>
public enum WorkloadWriteKind
{
    /// <summary><c>InsertAsync</c> (or <c>Insert</c> in a batch) of a key that is absent.</summary>
    Insert,

    /// <summary><c>UpdateAsync</c> of a key that is present.</summary>
    Update,

    /// <summary><c>UpsertAsync</c>.</summary>
    Upsert,

    /// <summary><c>DeleteAsync</c> of a key that is present.</summary>
    Delete,
}

/// <summary>One write: <paramref name="Value"/> is null for a delete.</summary>
public sealed record WorkloadWrite(WorkloadWriteKind Kind, int Key, WorkloadItem? Value);

/// <summary>
/// One step of a task's stream: a single write, or an atomic batch (<c>WriteAsync</c>) of several, which must be
/// visible whole or not at all.
/// </summary>
public sealed record WorkloadOp(int Task, int Step, bool Atomic, IReadOnlyList<WorkloadWrite> Writes);
