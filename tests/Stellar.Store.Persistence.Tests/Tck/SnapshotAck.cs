namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Every snapshot of a burst was saved.</summary>
internal sealed class SnapshotAck
{
    public static readonly SnapshotAck Instance = new();
}
