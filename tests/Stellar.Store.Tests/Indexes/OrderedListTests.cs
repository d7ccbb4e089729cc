using Stellar.Store.Indexes;

namespace Stellar.Store.Tests.Indexes;

/// <summary>The lock-free sorted set under the indexes, against a <see cref="SortedSet{T}"/> as the model.</summary>
public sealed class OrderedListTests
{
    /// <summary>
    /// How coarse the leading key kept in the pages is: 1 orders every item by it alone; 16 makes runs of sixteen items
    /// tie on it, so that the order falls back to the items themselves.
    /// </summary>
    public static TheoryData<int> Leads => new() { 1, 16 };

    [Theory]
    [MemberData(nameof(Leads))]
    public void Operations_InRandomOrder_AgreeWithASortedSetAfterEveryStep(int lead)
    {
        var random = new Random(20261125);
        var list = NewList(lead);
        var model = new SortedSet<int>();
        var nodes = new Dictionary<int, Item>();

        // Enough items for a tree of three levels, grown at random and then emptied in a random order, so that pages
        // split and are taken out.
        for (var step = 0; model.Count > 0 || step < 45_000; step++)
        {
            var item = step < 45_000 ? random.Next(12_000) : nodes.Keys.ElementAt(random.Next(nodes.Count));
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
            var probe = random.Next(-10, 12_010);
            Assert.Equal(model.GetViewBetween(probe, int.MaxValue).Cast<int?>().FirstOrDefault(), First(list.Ascending(new Item(probe))));
            Assert.Equal(model.GetViewBetween(int.MinValue, probe - 1).Cast<int?>().LastOrDefault(), First(list.Descending(new Item(probe))));
            Assert.Equal(model.Count == 0 ? null : model.Min, First(list.Ascending(null)));
            Assert.Equal(model.Count == 0 ? null : model.Max, First(list.Descending(null)));
            if (step % 5_000 == 0)
            {
                Assert.Equal(model, Walk(list));
                Assert.Equal(model.Reverse(), WalkDown(list));
                Assert.Equal(model.GetViewBetween(probe, int.MaxValue), Walk(list.Ascending(new Item(probe))));
                Assert.Equal(model.GetViewBetween(int.MinValue, probe - 1).Reverse(), Walk(list.Descending(new Item(probe))));
            }
        }

        Assert.Empty(model);
        Assert.Empty(Walk(list));
        Assert.Empty(WalkDown(list));
        Assert.Null(First(list.Ascending(new Item(0))));

        // Filled again after it emptied.
        foreach (var item in new[] { 5, 3, 9 })
        {
            list.Add(new Item(item));
        }

        Assert.Equal([3, 5, 9], Walk(list));
        Assert.Equal(5, First(list.Ascending(new Item(4))));
    }

    [Theory]
    [MemberData(nameof(Leads))]
    public void ALoadedSet_ReadsAndChangesAsOneFilledItemByItem(int lead)
    {
        var random = new Random(5);
        var model = new SortedSet<int>(Enumerable.Range(0, 20_000).Select(_ => random.Next(1_000_000)));
        var loaded = NewList(lead);
        var loadedNodes = model.Select(x => new Item(x)).ToList();
        loaded.Load(loadedNodes);
        Assert.Equal(model, Walk(loaded));
        Assert.Equal(model.Reverse(), WalkDown(loaded));
        foreach (var node in loadedNodes.Where((_, i) => i % 3 == 0))
        {
            loaded.Remove(node);
            model.Remove(node.Value);
        }

        for (var i = 0; i < 5_000; i++)
        {
            var item = random.Next(-1_000, 1_001_000);
            if (model.Add(item))
            {
                loaded.Add(new Item(item));
            }
        }

        Assert.Equal(model, Walk(loaded));
        Assert.Equal(model.Reverse(), WalkDown(loaded));
        Assert.Equal(model.Count, loaded.Count);
        for (var i = 0; i < 2_000; i++)
        {
            var probe = random.Next(-2_000, 1_002_000);
            Assert.Equal(model.GetViewBetween(probe, int.MaxValue).Cast<int?>().FirstOrDefault(), First(loaded.Ascending(new Item(probe))));
        }

        var empty = NewList(lead);
        empty.Load([]);
        Assert.Empty(Walk(empty));
        Assert.Null(First(empty.Ascending(new Item(1))));
        empty.Add(new Item(1));
        Assert.Equal([1], Walk(empty));
    }

    [Theory]
    [MemberData(nameof(Leads))]
    public async Task Readers_WhileTheWriterFillsAndEmptiesPages_WalkInOrderAndFindEveryItemThatStays(int lead)
    {
        // Multiples of 50 stay for the whole test. The writer fills a stretch of 500 numbers with every other one and
        // empties it again, so pages split and pages are taken out while readers walk and search.
        var list = NewList(lead);
        var stay = Enumerable.Range(0, 400).Select(i => i * 50).ToList();
        list.Load(stay.Select(x => new Item(x)).ToList());

        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            var random = new Random(7);
            while (!stop.IsCancellationRequested)
            {
                var start = random.Next(0, 19_500) | 1;
                var added = Enumerable.Range(0, 250).Select(i => start + (2 * i)).Where(x => x % 50 != 0).OrderBy(_ => random.Next()).Select(x => list.Add(new Item(x))).ToList();
                foreach (var node in added.OrderBy(_ => random.Next()))
                {
                    list.Remove(node);
                }
            }
        });

        var readers = Enumerable.Range(0, 2).Select(reader => Task.Run(() =>
        {
            var random = new Random(reader);
            for (var round = 0; round < 100; round++)
            {
                var seen = Walk(list);
                for (var i = 1; i < seen.Count; i++)
                {
                    Assert.True(seen[i - 1] < seen[i], $"the walk went from {seen[i - 1]} to {seen[i]}");
                }

                Assert.Equal(stay, seen.Where(x => x % 50 == 0));
                var down = WalkDown(list);
                for (var i = 1; i < down.Count; i++)
                {
                    Assert.True(down[i - 1] > down[i], $"the walk down went from {down[i - 1]} to {down[i]}");
                }

                Assert.Equal(stay.AsEnumerable().Reverse(), down.Where(x => x % 50 == 0));

                // A search finds the first item at or after its probe: never past an item that stays, never before the probe.
                for (var search = 0; search < 1_000; search++)
                {
                    var probe = random.Next(-5, 19_951);
                    var found = First(list.Ascending(new Item(probe)));
                    var staying = (probe + 49) / 50 * 50;
                    Assert.True(found is { } value && value >= probe && value <= staying, $"the search for {probe} found {found?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "nothing"}");
                    var top = random.Next(0, 20_000);
                    var below = First(list.Descending(new Item(top + 1)));
                    var stayingBelow = Math.Min(top / 50 * 50, stay[^1]);
                    Assert.True(below is { } under && under <= top && under >= stayingBelow, $"the search down from {top} found {below?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "nothing"}");
                }
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

    private static OrderedList<Item, int> NewList(int lead) => new(Item.Order, item => Math.DivRem(item.Value, lead, out var rest) - (rest < 0 ? 1 : 0), Comparer<int>.Default);

    private static List<int> Walk(OrderedList<Item, int> list) => Walk(list.Ascending(null));

    private static List<int> WalkDown(OrderedList<Item, int> list) => Walk(list.Descending(null));

    private static List<int> Walk(OrderedListCursor<Item, int> cursor)
    {
        var items = new List<int>();
        while (cursor.MoveNext(out var item))
        {
            items.Add(item.Value);
        }

        return items;
    }

    private static int? First(OrderedListCursor<Item, int> cursor) => cursor.MoveNext(out var item) ? item.Value : null;

    /// <summary>An item of the list under test: a number, its own node.</summary>
    private sealed class Item
    {
        public static readonly IComparer<Item> Order = Comparer<Item>.Create((x, y) => x.Value.CompareTo(y.Value));

        public Item(int value) => Value = value;

        public int Value { get; }
    }
}
