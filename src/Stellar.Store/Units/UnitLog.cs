using Stellar.Store.Actors;
using Stellar.Store.Format;

namespace Stellar.Store.Units;

/// <summary>
/// The store's record of committed cross-collection rounds: a collection of its own, named so that no user can open
/// it, holding for each session that committed a round the highest round it committed (a session's rounds are decided
/// in order). It is written through its own writer, so its records are blocks like any other, as durable as the store's
/// mode, checksummed, encrypted, and compacted as records are overwritten.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class UnitLog : IUnitLog
{
    /// <summary>The collection's name, which the naming rule for users' collections does not allow.</summary>
    public const string CollectionName = Store.CollectionName.UnitLog;

    private readonly Collection<Guid, (Guid Session, long Round)> _decisions;

    public UnitLog(Collection<Guid, (Guid Session, long Round)> decisions) => _decisions = decisions;

    /// <summary>The writer of the decisions' collection.</summary>
    public IWriterHandle Writer => _decisions.Writer;

    /// <summary>Key selector of the decisions' collection.</summary>
    public static Guid SessionOf((Guid Session, long Round) decision) => decision.Session;

    /// <summary>Whether the round <paramref name="tag"/> names was committed.</summary>
    public bool IsDecided(UnitTag tag) =>
        _decisions.TryGet(tag.Session, out var decision) && (ulong)decision.Round >= tag.Round;

    public Task RecordAsync(Guid session, long round) => _decisions.StoreUpsertAsync((session, round));
}
