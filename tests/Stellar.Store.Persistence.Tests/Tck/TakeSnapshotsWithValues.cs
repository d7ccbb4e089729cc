namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Saves one snapshot per array, in order.</summary>
internal sealed record TakeSnapshotsWithValues(int[][] Values);
