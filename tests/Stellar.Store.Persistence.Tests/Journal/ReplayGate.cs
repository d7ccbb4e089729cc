using Akka.Persistence.Journal;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>
/// A read event adapter that holds a replay at the <see cref="GoldChanged"/> event whose delta is <see cref="HoldAt"/>
/// until the test lets it go, so that a test can change the store under a replay in the middle of it. A replay the test
/// does not let go within 30 seconds fails.
/// </summary>
public sealed class ReplayGate : IReadEventAdapter
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);

    /// <summary>The delta of the event the replay is held at.</summary>
    public const int HoldAt = 5;

    /// <summary>Set when a replay reached the event it is held at.</summary>
    public static ManualResetEventSlim Reached { get; } = new();

    /// <summary>Set by the test to let the held replay go on.</summary>
    public static ManualResetEventSlim Released { get; } = new();

    public IEventSequence FromJournal(object evt, string manifest)
    {
        if (evt is GoldChanged { Delta: HoldAt })
        {
            Reached.Set();
            if (!Released.Wait(Wait))
            {
                throw new TimeoutException("The test did not let the held replay go on.");
            }
        }

        return EventSequence.Single(evt);
    }
}
