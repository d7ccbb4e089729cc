using Stellar.Store.Persistence.Records;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// One <c>AtomicWrite</c> ready for the store: its events as records (their orderings not yet given), or the reason it
/// is rejected before reaching the store (an event Akka could not serialize).
/// </summary>
internal readonly record struct AtomicDraft(IReadOnlyList<JournalRecord>? Records, Exception? Rejection);
