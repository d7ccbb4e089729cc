namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// The event every benchmark actor persists: player <see cref="Player"/> scored <see cref="Points"/>, the actor's
/// <see cref="Sequence"/>-th event. Small, as a game's events are; every journal gets it through Akka's own
/// serialization (the default serializer for objects), so the rows differ only by journal.
/// </summary>
public sealed record Scored(int Player, long Sequence, int Points)
{
    /// <summary>
    /// The points of the <paramref name="sequence"/>-th event of <paramref name="player"/>: fixed, so that a replay can
    /// be checked.
    /// </summary>
    public static int PointsOf(int player, long sequence) => (int)(((player * 7_919L) + (sequence * 104_729L)) % 1_000);
}
