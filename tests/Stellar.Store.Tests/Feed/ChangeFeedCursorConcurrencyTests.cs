using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// Acknowledgements, holds and releases of one cursor racing from several threads, each through its own instance of the
/// cursor: every one takes effect, and the stored cursor is what a model of the calls says, also after a reopen.
/// </summary>
public sealed class ChangeFeedCursorConcurrencyTests
{
    private const string Name = "items";

    /// <summary>A wait that does not end in this long is a hang, reported as a failure rather than waited out.</summary>
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);

    public static TheoryData<int> Seeds() => new(Stress.Seeds(1, 2, 20));

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task AcknowledgeHoldAndRelease_RacingOnOneCursor_LoseNoUpdateAndSurviveAReopen(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var options = new StoreOptions { Durability = Durability.WriteThrough };
        var store = await StellarStore.OpenAsync(memory, options);
        var cursors = Stress.Pick(16, 160);
        var expected = new Dictionary<string, (ChangePosition Position, long? MaxHeldBytes)>();
        try
        {
            var items = store.GetCollection<int, WorkloadItem>(Name, i => i.Id);
            for (var step = 0; step < 120; step++)
            {
                await items.UpsertAsync(new WorkloadItem(step, Task: 0, Step: step, Payload: "p"));
            }

            var positions = await FeedReading.ReadPositionsAsync(items, 120);
            for (var c = 0; c < cursors; c++)
            {
                var name = $"c{c}";

                // Three acknowledgers, each in order along its own share of the positions, and one caller that holds and
                // releases. The model: the furthest position acknowledged, and the holder's last call.
                var acknowledgers = Enumerable.Range(0, 3)
                    .Select(a => positions.Where((_, i) => i % 3 == a && random.Next(4) > 0).ToList())
                    .ToList();
                var holds = Enumerable.Range(0, random.Next(10, 40)).Select(_ => random.Next(3) == 0 ? (long?)null : random.Next(1, 1 << 20)).ToList();
                using var start = new Barrier(4);
                var calls = acknowledgers
                    .Select(share => Task.Run(async () =>
                    {
                        var cursor = items.Feed(name);
                        start.SignalAndWait(HangGuard);
                        foreach (var position in share)
                        {
                            // Once it completed, no other call may take it back: a cursor only moves forward.
                            await cursor.AcknowledgeAsync(position);
                            Assert.True(cursor.Position >= position, $"cursor {name} moved back behind {position} to {cursor.Position}");
                        }
                    }))
                    .Append(Task.Run(async () =>
                    {
                        var cursor = items.Feed(name);
                        start.SignalAndWait(HangGuard);
                        foreach (var bytes in holds)
                        {
                            // Only this caller changes the hold: until its next call, the hold is what it set.
                            await (bytes is { } bound ? cursor.HoldCompactionAsync(bound) : cursor.ReleaseCompactionAsync());
                            Assert.Equal(bytes, cursor.MaxHeldBytes);
                        }
                    }))
                    .ToList();
                await Task.WhenAll(calls).WaitAsync(HangGuard);

                var furthest = acknowledgers.SelectMany(share => share).DefaultIfEmpty(ChangePosition.Start).Max();
                expected[name] = (furthest, holds[^1]);
                var stored = items.Feed(name);
                Assert.Equal(expected[name], (stored.Position, stored.MaxHeldBytes));
            }

            // What the cursors' records hold on disk, not only in memory.
            await store.DisposeAsync();
            store = await StellarStore.OpenAsync(memory, options);
            items = store.GetCollection<int, WorkloadItem>(Name, i => i.Id);
            foreach (var (name, (position, maxHeldBytes)) in expected)
            {
                var reopened = items.Feed(name);
                Assert.Equal((position, maxHeldBytes), (reopened.Position, reopened.MaxHeldBytes));
            }
        }
        finally
        {
            await store.DisposeAsync();
        }
    }
}
