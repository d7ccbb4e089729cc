namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>Acknowledged store writes by kind, and leaderboard queries. Thread-safe.</summary>
internal sealed class WriteStats
{
    private readonly long[] _counts = new long[Enum.GetValues<WriteKind>().Length];
    private long _leaderboardQueries;

    public long Total
    {
        get
        {
            long total = 0;
            for (var i = 0; i < _counts.Length; i++)
            {
                total += Volatile.Read(ref _counts[i]);
            }

            return total;
        }
    }

    public long LeaderboardQueries => Volatile.Read(ref _leaderboardQueries);

    public void Count(WriteKind kind) => Interlocked.Increment(ref _counts[(int)kind]);

    public void CountLeaderboardQuery() => Interlocked.Increment(ref _leaderboardQueries);

    public long Of(WriteKind kind) => Volatile.Read(ref _counts[(int)kind]);
}
