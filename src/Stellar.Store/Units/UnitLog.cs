using Stellar.Store.Actors;
using Stellar.Store.Format;

namespace Stellar.Store.Units;

/// <summary>
/// The store's record of committed cross-collection rounds: a collection of its own, named so that no user can open
/// it, holding for each session that decided a round the highest round it decided (a session's rounds are decided in
/// order, each after the one before was written and decided everywhere). The decision of a round is recorded while
/// its parts are still being made durable, so it names where their blocks are; at the next open, before any other
/// collection loads, <see cref="Settle"/> reads those blocks and keeps the round only if every one is on disk. It is
/// written through its own writer, so its records are blocks like any other, as durable as the store's mode,
/// checksummed, encrypted, and compacted as records are overwritten.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class UnitLog : IUnitLog
{
    /// <summary>The collection's name, which the naming rule for users' collections does not allow.</summary>
    public const string CollectionName = Store.CollectionName.UnitLog;

    private readonly Collection<Guid, UnitDecision> _decisions;

    public UnitLog(Collection<Guid, UnitDecision> decisions) => _decisions = decisions;

    /// <summary>The writer of the decisions' collection.</summary>
    public IWriterHandle Writer => _decisions.Writer;

    /// <summary>Key selector of the decisions' collection.</summary>
    public static Guid SessionOf(UnitDecision decision) => decision.Session;

    /// <summary>Whether the round <paramref name="tag"/> names was committed (once <see cref="Settle"/> ran).</summary>
    public bool IsDecided(UnitTag tag) =>
        _decisions.TryGet(tag.Session, out var decision) && (ulong)decision.Round >= tag.Round;

    public Task RecordAsync(Guid session, long round, IReadOnlyList<PartBlock> parts) =>
        _decisions.StoreUpsertAsync(new UnitDecision(session, round, [.. parts]));

    /// <summary>
    /// At open, before any other collection loads and before any round of this session: settles every decision that
    /// still names its parts' blocks. The round
    /// stays committed when <paramref name="probe"/> finds each block on disk with the round's tag; otherwise a crash or a
    /// failed write caught it before its last step reached the disk everywhere, and the session's committed rounds end
    /// one below it (its parts are left out wherever they are). The settled records are durable on the device before
    /// this returns, whatever the store's mode, so the answer never changes later, when compactions have moved the
    /// blocks or new blocks have taken a lost part's place.
    /// </summary>
    /// <remarks>
    /// First, a part of a round the log counts as committed that sits in a shard file the open keeps without loading (the
    /// manifest, put back from a copy, is older than that shard) refuses the open with <see cref="StaleManifestException"/>,
    /// before anything is written, unless it is a session's last round whose record still names its parts: settling leaves
    /// that one out, as it would a round whose part a crash lost, and nothing later in its session rests on it. An earlier
    /// round of the session, or one a settled record covers, cannot be left out without keeping later rounds that may
    /// have been made because it succeeded (the log holds one committed prefix of rounds per session), nor applied
    /// without its part: only the manifest that lists the shard opens the store whole.
    /// </remarks>
    public void Settle(PartProbe probe, string manifestPath)
    {
        foreach (var (path, tag) in probe.IgnoredParts())
        {
            if (_decisions.TryGet(tag.Session, out var decision) && (ulong)decision.Round >= tag.Round
                && (decision.Parts is null || (ulong)decision.Round != tag.Round))
            {
                throw new StaleManifestException(manifestPath, path,
                    $"it holds a part of a write across collections (round {tag.Round} of session {tag.Session}) that the store's unit log counts as committed, " +
                    "and without that shard the write would count in some collections and not in others");
            }
        }

        var open = _decisions.Query(d => d.Parts is not null).ToList();
        foreach (var decision in open)
        {
            var tag = new UnitTag(decision.Session, (ulong)decision.Round);
            var whole = decision.Parts!.All(part => probe.Holds(part, tag));
            var settled = new UnitDecision(decision.Session, whole ? decision.Round : decision.Round - 1, null);
            _decisions.StoreUpsertAsync(settled).GetAwaiter().GetResult();
        }

        if (open.Count > 0)
        {
            Writer.FlushAsync().GetAwaiter().GetResult();
        }
    }
}
