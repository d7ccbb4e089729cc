using Stellar.Store.Indexes;

namespace Stellar.Store.Tests.Indexes;

/// <summary>The lock-free sorted set under the indexes, against a <see cref="SortedSet{T}"/> as the model.</summary>
public sealed class SkipListTests
{
    [Fact]
    public void Operations_InRandomOrder_AgreeWithASortedSetAfterEveryStep()
    {
        var random = new Random(20261125);
        var list = new SkipList<int>(Comparer<int>.Default);
        var model = new SortedSet<int>();
        for (var step = 0; step < 20_000; step++)
        {
            var item = random.Next(2_000);
            if (model.Contains(item))
            {
                Assert.True(list.Remove(item));
                model.Remove(item);
            }
            else
            {
                list.Add(item);
                model.Add(item);
            }

            Assert.False(list.Remove(-1 - item));
            Assert.Equal(model.Count, list.Count);
            var probe = random.Next(-10, 2_010);
            Assert.Equal(model.GetViewBetween(probe, int.MaxValue).Cast<int?>().FirstOrDefault(), list.FirstAtOrAfter(probe)?.Item);
            Assert.Equal(model.GetViewBetween(int.MinValue, probe - 1).Cast<int?>().LastOrDefault(), list.LastBefore(probe)?.Item);
            Assert.Equal(model.Count == 0 ? null : model.Max, list.Last()?.Item);
            if (step % 1_000 == 0)
            {
                Assert.Equal(model, Walk(list.First));
            }
        }

        Assert.Equal(model, Walk(list.First));
    }

    [Fact]
    public async Task Readers_WhileTheWriterAddsAndRemoves_WalkInOrderAndAlwaysSeeTheItemsThatStay()
    {
        // Even items stay for the whole test; odd ones come and go while readers walk.
        var list = new SkipList<int>(Comparer<int>.Default);
        var stay = Enumerable.Range(0, 5_000).Select(i => i * 2).ToList();
        foreach (var item in stay)
        {
            list.Add(item);
        }

        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            var random = new Random(7);
            var present = new HashSet<int>();
            while (!stop.IsCancellationRequested)
            {
                var odd = (random.Next(5_000) * 2) + 1;
                if (present.Remove(odd))
                {
                    list.Remove(odd);
                }
                else
                {
                    present.Add(odd);
                    list.Add(odd);
                }
            }
        });

        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
        {
            for (var walk = 0; walk < 200; walk++)
            {
                var seen = Walk(list.First);
                for (var i = 1; i < seen.Count; i++)
                {
                    Assert.True(seen[i - 1] < seen[i], $"the walk went from {seen[i - 1]} to {seen[i]}");
                }

                Assert.Equal(stay, seen.Where(x => x % 2 == 0));
            }
        })).ToArray();

        try
        {
            await Task.WhenAll(readers).WaitAsync(TimeSpan.FromMinutes(2));
        }
        finally
        {
            await stop.CancelAsync();
            await writer;
        }
    }

    private static List<int> Walk(SkipList<int>.Node? node)
    {
        var items = new List<int>();
        for (; node is not null; node = node.Next)
        {
            items.Add(node.Item);
        }

        return items;
    }
}
