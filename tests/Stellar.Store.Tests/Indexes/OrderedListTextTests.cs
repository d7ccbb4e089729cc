using Stellar.Store.Indexes;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// The sorted set under the indexes with text leading keys, whose pages keep a head of each key after the characters
/// the page's keys share, against a <see cref="SortedSet{T}"/> in ordinal order as the model: keys that share long
/// starts, are starts of one another, are empty or null, or hold the lowest and highest characters.
/// </summary>
public sealed class OrderedListTextTests
{
    /// <summary>Above every text <see cref="Text"/> makes.</summary>
    private static readonly string Top = new('\uffff', 20);

    /// <summary>
    /// How much of an item's text its leading key is: all of it, or its first six characters, so that runs of items tie
    /// on the key and the order falls back to the items themselves.
    /// </summary>
    public static TheoryData<int> Leads => new() { int.MaxValue, 6 };

    [Theory]
    [MemberData(nameof(Leads))]
    public void Operations_InRandomOrder_AgreeWithASortedSetAfterEveryStep(int lead)
    {
        var random = new Random(20261126);
        var list = NewList(lead);
        var model = new SortedSet<string>(StringComparer.Ordinal);
        var nodes = new Dictionary<string, Item>(StringComparer.Ordinal);

        // Enough items for a tree of three levels, grown at random and then emptied in a random order.
        for (var step = 0; model.Count > 0 || step < 40_000; step++)
        {
            var text = step < 40_000 ? Text(random) : nodes.Keys.ElementAt(random.Next(nodes.Count));
            if (model.Remove(text))
            {
                list.Remove(nodes[text]);
                nodes.Remove(text);
            }
            else
            {
                nodes[text] = list.Add(new Item(text));
                model.Add(text);
            }

            Assert.Equal(model.Count, list.Count);
            var probe = Text(random);
            Assert.Equal(Ceiling(model, probe), First(list.Ascending(new Item(probe))));
            Assert.Equal(Below(model, probe), First(list.Descending(new Item(probe))));
            if (step % 4_000 == 0)
            {
                Assert.Equal(model, Walk(list.Ascending(null)));
                Assert.Equal(model.Reverse(), Walk(list.Descending(null)));
                Assert.Equal(model.GetViewBetween(probe, Top), Walk(list.Ascending(new Item(probe))));
            }
        }

        Assert.Empty(Walk(list.Ascending(null)));
    }

    [Theory]
    [MemberData(nameof(Leads))]
    public void ALoadedSet_FindsAndChangesAsOneFilledItemByItem(int lead)
    {
        var random = new Random(11);
        var model = new SortedSet<string>(Enumerable.Range(0, 20_000).Select(_ => Text(random)), StringComparer.Ordinal);
        var list = NewList(lead);
        var nodes = model.Select(x => new Item(x)).ToList();
        list.Load(nodes);
        Assert.Equal(model, Walk(list.Ascending(null)));
        foreach (var node in nodes.Where((_, i) => i % 3 == 0))
        {
            list.Remove(node);
            model.Remove(node.Text);
        }

        for (var i = 0; i < 5_000; i++)
        {
            var text = Text(random);
            if (model.Add(text))
            {
                list.Add(new Item(text));
            }
        }

        Assert.Equal(model, Walk(list.Ascending(null)));
        Assert.Equal(model.Reverse(), Walk(list.Descending(null)));
        for (var i = 0; i < 2_000; i++)
        {
            var probe = Text(random);
            Assert.Equal(Ceiling(model, probe), First(list.Ascending(new Item(probe))));
        }
    }

    [Fact]
    public async Task Readers_WhileTheWriterSplitsAndEmptiesPagesOfKeysThatShareTheirStart_FindEveryKeyThatStays()
    {
        // The keys share their first eleven characters, so every page's heads start after a long shared stretch, and
        // the writer's splits and removals change how much each page's keys share while readers search.
        static string Key(int number) => $"player-{number:D8}";
        var list = NewList(int.MaxValue);
        var stay = Enumerable.Range(0, 400).Select(i => i * 50).ToList();
        list.Load(stay.Select(x => new Item(Key(x))).ToList());

        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            var random = new Random(7);
            while (!stop.IsCancellationRequested)
            {
                var start = random.Next(0, 19_500) | 1;
                var added = Enumerable.Range(0, 250).Select(i => start + (2 * i)).Where(x => x % 50 != 0).OrderBy(_ => random.Next()).Select(x => list.Add(new Item(Key(x)))).ToList();
                foreach (var node in added.OrderBy(_ => random.Next()))
                {
                    list.Remove(node);
                }
            }
        });

        var readers = Enumerable.Range(0, 2).Select(reader => Task.Run(() =>
        {
            var random = new Random(reader);
            for (var round = 0; round < 50; round++)
            {
                var seen = Walk(list.Ascending(null));
                Assert.Equal(seen.Order(StringComparer.Ordinal), seen);
                Assert.Equal(stay.Select(Key), seen.Where(x => int.Parse(x.AsSpan(7), System.Globalization.CultureInfo.InvariantCulture) % 50 == 0));
                for (var search = 0; search < 1_000; search++)
                {
                    var probe = random.Next(-5, 19_951);
                    var found = First(list.Ascending(new Item(Key(probe))));
                    var staying = Key((probe + 49) / 50 * 50);
                    Assert.True(
                        found is not null && string.CompareOrdinal(found, Key(probe)) >= 0 && string.CompareOrdinal(found, staying) <= 0,
                        $"the search for {Key(probe)} found {found ?? "nothing"}");
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

    /// <summary>The model's first text at or after <paramref name="probe"/>, or null.</summary>
    private static string? Ceiling(SortedSet<string> model, string probe) => model.GetViewBetween(probe, Top) is { Count: > 0 } view ? view.Min : null;

    /// <summary>The model's last text before <paramref name="probe"/>, or null.</summary>
    private static string? Below(SortedSet<string> model, string probe) => model.GetViewBetween(string.Empty, probe).Reverse().FirstOrDefault(x => x != probe);

    /// <summary>
    /// A text of up to fourteen characters of a small alphabet that holds the lowest and highest characters, half of
    /// them after a long shared start; sometimes empty (whose leading key is null).
    /// </summary>
    private static string Text(Random random)
    {
        const string Alphabet = "\0ab\uffff";
        var start = random.Next(3) switch { 0 => "player-0000", 1 => "player-", _ => string.Empty };
        var length = random.Next(0, 6);
        var text = new char[length];
        for (var i = 0; i < length; i++)
        {
            text[i] = Alphabet[random.Next(Alphabet.Length)];
        }

        return start + new string(text);
    }

    /// <summary>A list whose leading key is an item's first <paramref name="lead"/> characters, and null for an empty item.</summary>
    private static OrderedList<Item, string?> NewList(int lead) =>
        new(Item.Order, item => item.Text.Length == 0 ? null : item.Text[..Math.Min(lead, item.Text.Length)], StringComparer.Ordinal);

    private static List<string> Walk(OrderedListCursor<Item, string?> cursor)
    {
        var items = new List<string>();
        while (cursor.MoveNext(out var item))
        {
            items.Add(item.Text);
        }

        return items;
    }

    private static string? First(OrderedListCursor<Item, string?> cursor) => cursor.MoveNext(out var item) ? item.Text : null;

    /// <summary>An item of the list under test: a text, its own node.</summary>
    private sealed class Item
    {
        public static readonly IComparer<Item> Order = Comparer<Item>.Create((x, y) => string.CompareOrdinal(x.Text, y.Text));

        public Item(string text) => Text = text;

        public string Text { get; }
    }
}
