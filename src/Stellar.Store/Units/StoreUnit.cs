using Stellar.Store.Actors;
using Stellar.Store.Engine;

namespace Stellar.Store.Units;

/// <summary>
/// One <see cref="StellarStore.WriteAsync"/> across collections on its way through the coordinator: each collection's
/// writes, already encoded and checked against the size limits, and the caller's task.
/// </summary>
/// <remarks>Thread safety: built on the caller's thread; then read by the coordinator and the writers, and completed once.</remarks>
internal sealed class StoreUnit : IUnitWrite
{
    private readonly Dictionary<IUnitParticipant, object> _writes;
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public StoreUnit(Dictionary<IUnitParticipant, object> writes)
    {
        _writes = writes;
        Participants = writes.Keys.ToList();
    }

    public IReadOnlyList<IUnitParticipant> Participants { get; }

    /// <summary>Completes with the unit's outcome.</summary>
    public Task Completion => _completion.Task;

    /// <summary>The writes of the unit to <paramref name="participant"/>'s collection.</summary>
    public List<SingleWrite<TKey, TValue>> WritesFor<TKey, TValue>(IUnitParticipant participant) =>
        (List<SingleWrite<TKey, TValue>>)_writes[participant];

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
