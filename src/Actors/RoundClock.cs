namespace Stellar.Store.Actors;

/// <summary>
/// The newest cross-collection round that is visible in every collection it touched. A store snapshot reads it to
/// tell a round whose part one collection has published while another has not yet: it reads such a collection below
/// the part (see the store's snapshot).
/// </summary>
/// <remarks>Thread safety: written by the coordinator only; read from any thread.</remarks>
internal sealed class RoundClock
{
    private long _visible;

    /// <summary>Rounds up to this one are visible everywhere; rounds are made visible in order.</summary>
    public long Visible => Volatile.Read(ref _visible);

    /// <summary>Coordinator only: round <paramref name="round"/> is now visible in every collection it touched.</summary>
    public void MakeVisible(long round)
    {
        System.Diagnostics.Debug.Assert(round > _visible, "rounds become visible in order");
        Volatile.Write(ref _visible, round);
    }
}
