using Stellar.Store.Engine;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// The parallel loop of loads and commits: every index once, and failures thrown together after every started
/// iteration ended. That its end waits for no pool thread that has not started is checked in a process whose pool is
/// capped (<c>Reliability/StarvedPoolTests</c>), since the cap is the process's.
/// </summary>
public sealed class SharedLoopTests
{
    [Theory]
    [InlineData(0, 4)]
    [InlineData(1, 4)]
    [InlineData(2, 1)]
    [InlineData(7, 2)]
    [InlineData(1_000, 4)]
    public void For_RunsEveryIndexOnce(int count, int parallelism)
    {
        var runs = new int[count];
        SharedLoop.For(count, parallelism, i => Interlocked.Increment(ref runs[i]));
        Assert.All(runs, r => Assert.Equal(1, r));
    }

    [Fact]
    public void For_WhenIterationsThrow_ThrowsTheirExceptionsOnceEveryStartedIterationEnded()
    {
        var running = 0;
        var failure = Assert.Throws<AggregateException>(() => SharedLoop.For(64, 4, i =>
        {
            Interlocked.Increment(ref running);
            try
            {
                if (i == 3)
                {
                    throw new InvalidDataException("block 3");
                }

                Thread.Sleep(5);
            }
            finally
            {
                Interlocked.Decrement(ref running);
            }
        }));

        Assert.True(Volatile.Read(ref running) == 0, "the loop returned while an iteration still ran");
        Assert.Contains(failure.InnerExceptions, e => e is InvalidDataException { Message: "block 3" });
    }
}
