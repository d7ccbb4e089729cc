namespace Stellar.Store.Actors;

/// <summary>The messages of <see cref="StoreGuardian"/>.</summary>
internal static class GuardianProtocol
{
    /// <summary>
    /// Command: start a writer named <paramref name="Name"/> over <paramref name="Sink"/> whose commit groups take at
    /// most <paramref name="MaxGroupBytes"/> (see <see cref="CollectionWriter"/>); the reply is its IActorRef.
    /// </summary>
    public sealed record StartWriter(string Name, ICommitSink Sink, long MaxGroupBytes = long.MaxValue);
}
