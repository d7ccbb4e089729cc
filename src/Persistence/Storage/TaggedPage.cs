using Stellar.Store.Persistence.Records;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// A page of <see cref="EventLog.ReadTagged"/>: its events, the highest ordering among the committed entries it read
/// (not the bound asked for: an event with a lower ordering may still be committing), and whether more may follow.
/// </summary>
internal sealed record TaggedPage(IReadOnlyList<JournalRecord> Events, long ScannedTo, bool More);
