using System.Collections.Concurrent;

namespace Stellar.Store.Actors.Tests;

/// <summary>A unit log in memory: the decisions it recorded, in order, with the part blocks each names; it can be made to fail or wait.</summary>
internal sealed class MemoryUnitLog : IUnitLog
{
    public ConcurrentQueue<(Guid Session, long Round, IReadOnlyList<PartBlock> Parts)> Decisions { get; } = new();

    public bool Fail { get; set; }

    /// <summary>Throws from the call itself instead of failing the task it returns.</summary>
    public bool ThrowsAtCall { get; set; }

    /// <summary>While not null, a decision is recorded (listed in <see cref="Decisions"/>) but not durable until it completes.</summary>
    public TaskCompletionSource? Gate { get; set; }

    public Task RecordAsync(Guid session, long round, IReadOnlyList<PartBlock> parts) =>
        ThrowsAtCall ? throw new InvalidOperationException("log refused the call") : RecordCoreAsync(session, round, parts);

    private async Task RecordCoreAsync(Guid session, long round, IReadOnlyList<PartBlock> parts)
    {
        await Task.Yield();
        if (Fail)
        {
            throw new IOException("log on fire");
        }

        Decisions.Enqueue((session, round, parts.ToArray()));
        if (Gate is { } gate)
        {
            await gate.Task;
        }
    }
}
