using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

public sealed class TickLoopTests
{
    [Fact]
    public void IdleCollection_WhenTicksAllocateMoreThanTheThreshold_CollectsBetweenTicks()
    {
        // Each tick allocates 2 MiB, twice the threshold, so every idle gap is due a collection. The oracle is the
        // runtime's own collection counter, read at each tick's start and end: a collection the loop ran between two
        // ticks shows up as a count that changed from one tick's end to the next one's start.
        var stats = new TickStats(TimeSpan.FromMilliseconds(50));
        var countAtTickEnd = -1;
        var collectedBetweenTicks = 0;
        var ticks = 0;
        var done = new ManualResetEventSlim();
        var loop = new TickLoop(
            _ =>
            {
                var atStart = GC.CollectionCount(0);
                if (countAtTickEnd >= 0 && atStart > countAtTickEnd)
                {
                    collectedBetweenTicks++;
                }

                GC.KeepAlive(new byte[1 << 20]);
                GC.KeepAlive(new byte[1 << 20]);
                countAtTickEnd = GC.CollectionCount(0);
                if (++ticks == 10)
                {
                    done.Set();
                }
            },
            () => { },
            stats,
            idleCollectBytes: 1 << 20);

        loop.Start();
        Assert.True(done.Wait(TimeSpan.FromSeconds(30)), "the loop did not run 10 ticks");
        loop.Stop();

        Assert.True(stats.IdleCollections >= 1, "no collection ran between ticks");
        Assert.True(collectedBetweenTicks >= stats.IdleCollections - 1, $"{stats.IdleCollections} idle collections, but the count changed between ticks only {collectedBetweenTicks} times");
        Assert.True(stats.IdleCollections <= ticks, "more idle collections than ticks");
    }

    [Fact]
    public void IdleCollection_WhenTurnedOff_NeverCollects()
    {
        var stats = new TickStats(TimeSpan.FromMilliseconds(20));
        var done = new ManualResetEventSlim();
        var ticks = 0;
        var loop = new TickLoop(
            _ =>
            {
                GC.KeepAlive(new byte[1 << 20]);
                if (++ticks == 5)
                {
                    done.Set();
                }
            },
            () => { },
            stats,
            idleCollectBytes: 0);

        loop.Start();
        Assert.True(done.Wait(TimeSpan.FromSeconds(30)), "the loop did not run 5 ticks");
        loop.Stop();

        Assert.Equal(0, stats.IdleCollections);
    }
}
