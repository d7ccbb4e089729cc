namespace Stellar.Store.Actors.Tests;

/// <summary>A unit that adds keys to several <see cref="SetParticipant"/>s; its task completes with the outcome.</summary>
internal sealed class SetUnit(params (SetParticipant Participant, int[] Keys)[] writes) : IUnitWrite
{
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public IReadOnlyList<IUnitParticipant> Participants { get; } = writes.Select(w => (IUnitParticipant)w.Participant).ToList();

    public Task Completion => _completion.Task;

    public int[] KeysFor(SetParticipant participant) => writes.Single(w => ReferenceEquals(w.Participant, participant)).Keys;

    public void Complete(Exception? failure)
    {
        if (failure is null)
        {
            _completion.TrySetResult();
        }
        else
        {
            _completion.TrySetException(failure);
        }
    }
}
