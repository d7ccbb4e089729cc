namespace Stellar.Store.Snapshots;

/// <summary>A published commit version and the number of live keys at it. Immutable; swapped with one volatile write.</summary>
internal sealed record PublishedState(long Version, long Count);
