namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>What a <see cref="Demo"/> run did: every command with its reply, and each player as seen before and after the restart.</summary>
public sealed record DemoResult(IReadOnlyList<CommandOutcome> Commands, IReadOnlyList<PlayerView> BeforeRestart, IReadOnlyList<PlayerView> AfterRestart)
{
    /// <summary>Whether every player came back after the restart with the state it had before it.</summary>
    public bool Recovered => BeforeRestart.Count == AfterRestart.Count
        && BeforeRestart.Zip(AfterRestart).All(p => p.First.PersistenceId == p.Second.PersistenceId
            && p.First.State.SameAs(p.Second.State) && p.First.LastSequenceNr == p.Second.LastSequenceNr);
}
