using System.Collections.Concurrent;

namespace Stellar.Store.Actors.Tests;

/// <summary>A unit log in memory: the decisions it recorded, in order; it can be made to fail.</summary>
internal sealed class MemoryUnitLog : IUnitLog
{
    public ConcurrentQueue<(Guid Session, long Round)> Decisions { get; } = new();

    public bool Fail { get; set; }

    public async Task RecordAsync(Guid session, long round)
    {
        await Task.Yield();
        if (Fail)
        {
            throw new IOException("log on fire");
        }

        Decisions.Enqueue((session, round));
    }
}
