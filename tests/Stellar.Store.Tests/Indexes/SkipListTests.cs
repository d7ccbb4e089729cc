using Stellar.Store.Indexes;

namespace Stellar.Store.Tests.Indexes;

/// <summary>The lock-free sorted set under the indexes, against a <see cref="SortedSet{T}"/> as the model.</summary>
public sealed class SkipListTests
{
    [Fact]
    public void Operations_InRandomOrder_AgreeWithASortedSetAfterEveryStep()
    {
        var random = new Random(20261125);
        var list = new SkipList<Item>(Item.Order);
        var model = new SortedSet<int>();
        var nodes = new Dictionary<int, Item>();
        for (var step = 0; step < 20_000; step++)
        {
            var item = random.Next(2_000);
            if (model.Remove(item))
            {
                list.Remove(nodes[item]);
                nodes.Remove(item);
            }
            else
            {
                nodes[item] = list.Add(new Item(item));
                Assert.Equal(item, nodes[item].Value);
                model.Add(item);
            }

            Assert.Equal(model.Count, list.Count);
            var probe = random.Next(-10, 2_010);
            Assert.Equal(model.GetViewBetween(probe, int.MaxValue).Cast<int?>().FirstOrDefault(), list.FirstAtOrAfter(new Item(probe))?.Value);
            Assert.Equal(model.GetViewBetween(int.MinValue, probe - 1).Cast<int?>().LastOrDefault(), list.FirstAtOrAfter(new Item(probe)) is { } at ? list.Before(at)?.Value : list.Last()?.Value);
            Assert.Equal(model.Count == 0 ? null : model.Max, list.Last()?.Value);
            if (step % 1_000 == 0)
            {
                Assert.Equal(model, Walk(list.First));
                Assert.Equal(model.Reverse(), WalkDown(list, list.Last()));
            }
        }

        Assert.Equal(model, Walk(list.First));
        Assert.Equal(model.Reverse(), WalkDown(list, list.Last()));

        // A set loaded in one pass reads and changes as one filled item by item.
        var loaded = new SkipList<Item>(Item.Order);
        var loadedNodes = model.Select(x => new Item(x)).ToList();
        loaded.Load(loadedNodes);
        Assert.Equal(model, Walk(loaded.First));
        Assert.Equal(model.Reverse(), WalkDown(loaded, loaded.Last()));
        foreach (var node in loadedNodes.Where((_, i) => i % 3 == 0))
        {
            loaded.Remove(node);
            model.Remove(node.Value);
        }

        loaded.Add(new Item(-5));
        model.Add(-5);
        Assert.Equal(model, Walk(loaded.First));
        Assert.Equal(model.Reverse(), WalkDown(loaded, loaded.Last()));
        Assert.Equal(model.Count, loaded.Count);
    }

    [Fact]
    public async Task Readers_WhileTheWriterAddsAndRemoves_WalkInOrderAndAlwaysSeeTheItemsThatStay()
    {
        // Even items stay for the whole test; odd ones come and go while readers walk.
        var list = new SkipList<Item>(Item.Order);
        var stay = Enumerable.Range(0, 5_000).Select(i => i * 2).ToList();
        list.Load(stay.Select(x => new Item(x)).ToList());

        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            var random = new Random(7);
            var present = new Dictionary<int, Item>();
            while (!stop.IsCancellationRequested)
            {
                var odd = (random.Next(5_000) * 2) + 1;
                if (present.Remove(odd, out var node))
                {
                    list.Remove(node);
                }
                else
                {
                    present[odd] = list.Add(new Item(odd));
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
                var down = WalkDown(list, list.Last());
                for (var i = 1; i < down.Count; i++)
                {
                    Assert.True(down[i - 1] > down[i], $"the walk down went from {down[i - 1]} to {down[i]}");
                }

                Assert.Equal(stay.AsEnumerable().Reverse(), down.Where(x => x % 2 == 0));
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

    private static List<int> WalkDown(SkipList<Item> list, Item? node)
    {
        var items = new List<int>();
        for (; node is not null; node = list.Before(node))
        {
            items.Add(node.Value);
        }

        return items;
    }

    private static List<int> Walk(Item? node)
    {
        var items = new List<int>();
        for (; node is not null; node = node.Next)
        {
            items.Add(node.Value);
        }

        return items;
    }

    /// <summary>An item of the list under test: a number, its own node.</summary>
    private sealed class Item : SkipListNode<Item>
    {
        public static readonly IComparer<Item> Order = Comparer<Item>.Create((x, y) => x.Value.CompareTo(y.Value));

        public Item(int value) => Value = value;

        public int Value { get; }
    }
}
