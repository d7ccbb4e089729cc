namespace Stellar.Store.Snapshots;

/// <summary>A published commit version and the number of live keys at it. Immutable; swapped with one volatile write.</summary>
/// <param name="Version">The commit version readers read at.</param>
/// <param name="Count">The live keys at <paramref name="Version"/>.</param>
/// <param name="PartRound">
/// When this version is a cross-collection round's part (published while the round's other parts may not be yet), that
/// round's number; else 0. A store snapshot that must not see the round reads at <c>Version - 1</c>, which the publish
/// keeps readable (see <see cref="VersionedMap{TKey,TValue}.PublishPart"/>).
/// </param>
/// <param name="CountBeforePart">The live keys at <c>Version - 1</c> when <paramref name="PartRound"/> is set.</param>
internal sealed record PublishedState(long Version, long Count, long PartRound = 0, long CountBeforePart = 0);
