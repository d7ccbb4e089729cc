namespace Stellar.Store.Actors;

/// <summary>
/// The messages of <see cref="UnitCoordinator"/>. Commands are imperative; the writers' replies are outcomes, each
/// naming the round and the participant (its index in the round) it is about.
/// </summary>
internal static class UnitProtocol
{
    /// <summary>Command: commit <paramref name="Unit"/> atomically across its collections.</summary>
    public sealed record Submit(IUnitWrite Unit);

    /// <summary>Command: finish the round in flight and the units queued, then refuse new ones; completes when done.</summary>
    public sealed record Close(TaskCompletionSource<bool> Completion);

    /// <summary>Outcome: the participant staged its part and holds its group.</summary>
    public sealed record PartStaged(long Round, int Participant);

    /// <summary>Outcome: the participant rejected its part (nothing staged); <paramref name="Cause"/> says which units, and why.</summary>
    public sealed record PartRejected(long Round, int Participant, Exception Cause);

    /// <summary>
    /// Outcome: the participant's part reached the OS at <paramref name="Blocks"/> and is being made durable. Sent before
    /// <see cref="PartWritten"/>, from the thread that writes the part, so that the decision is recorded meanwhile.
    /// </summary>
    public sealed record PartPlaced(long Round, int Participant, IReadOnlyList<PartBlock> Blocks);

    /// <summary>Outcome: the participant's part is written and as durable as the store's mode promises, not yet visible.</summary>
    public sealed record PartWritten(long Round, int Participant);

    /// <summary>
    /// Outcome: writing the participant's part failed, or publishing it once written and decided did; its outcome is
    /// uncertain and the participant is faulted.
    /// </summary>
    public sealed record PartFailed(long Round, int Participant, Exception Cause);

    /// <summary>Outcome: the participant published its part.</summary>
    public sealed record PartPublished(long Round, int Participant);

    /// <summary>To self, after the first unit that found no round in flight: form a round of everything queued by now.</summary>
    internal sealed record StartRound
    {
        public static readonly StartRound Instance = new();
    }

    /// <summary>Outcome (to self): the round's decision is recorded, or <paramref name="Failure"/> says why it may not be.</summary>
    internal sealed record Decided(long Round, Exception? Failure);
}
