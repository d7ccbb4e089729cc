using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// The sorted run an index is built into, and its merge with the entries written since, against plain lists of
/// (index key, key, from, until) as the model.
/// </summary>
public sealed class SortedRunTests
{
    private static readonly IndexEntryComparer<int, int, string> Order = new(Comparer<int>.Default, Comparer<int>.Default);

    [Fact]
    public void NextAndPreviousVisible_AsEntriesEndBlockByBlock_AgreeWithAScanAtEveryVersion()
    {
        var random = new Random(7);
        const int Count = 1_000;
        var run = new SortedRun<int, int, string>(Enumerable.Range(0, Count).Select(i => new RunEntry<int, int, string>(i, i, Node(1))).ToArray(), Count);
        var until = Enumerable.Repeat(long.MaxValue, Count).ToArray();

        // Whole blocks end (some of them one slot at a time in shuffled order), and single slots elsewhere.
        var order = Enumerable.Range(128, 192).Concat(Enumerable.Range(640, 64)).OrderBy(_ => random.Next()).Concat(Enumerable.Range(0, 40).Select(_ => random.Next(Count))).Distinct().ToList();
        var version = 10L;
        foreach (var slot in order)
        {
            run.End(slot, ++version);
            until[slot] = version;
        }

        for (var at = 9L; at <= version + 1; at += 7)
        {
            for (var slot = 0; slot < Count; slot += 13)
            {
                var next = Enumerable.Range(slot, Count - slot).Where(s => at < until[s]).DefaultIfEmpty(Count).First();
                Assert.Equal(next, run.NextVisible(slot, at));
                var previous = Enumerable.Range(0, slot + 1).Reverse().Where(s => at < until[s]).DefaultIfEmpty(-1).First();
                Assert.Equal(previous, run.PreviousVisible(slot, at));
            }
        }
    }

    [Fact]
    public void AscendingAndDescending_OfARunAndTheEntriesWrittenSince_MergeInIndexOrderAtEveryVersion()
    {
        var random = new Random(11);
        var index = new TestIndex();
        var model = new List<(int IndexKey, int Key, long From, long Until)>();

        // The build: 500 records, several per index key.
        var built = Enumerable.Range(0, 500).Select(key => (IndexKey: random.Next(60), Key: key)).ToList();
        index.BuildFrom(built, version: 5);
        model.AddRange(built.Select(b => (b.IndexKey, b.Key, 5L, long.MaxValue)));

        // Then each step moves a record to another index key (sometimes back to the one it had) or deletes it.
        var current = built.ToDictionary(b => b.Key, b => b.IndexKey);
        for (var version = 6L; version < 900; version++)
        {
            var key = random.Next(520);
            var at = model.FindIndex(m => m.Key == key && m.Until == long.MaxValue);
            if (at >= 0)
            {
                model[at] = model[at] with { Until = version };
            }

            if (random.Next(5) == 0)
            {
                index.Move(key, null, version);
                current.Remove(key);
                continue;
            }

            var indexKey = current.TryGetValue(key, out var had) && random.Next(3) == 0 ? had : random.Next(60);
            index.Move(key, indexKey, version);
            current[key] = indexKey;
            model.Add((indexKey, key, version, long.MaxValue));
        }

        for (var version = 5L; version < 900; version += 37)
        {
            var visible = model.Where(m => m.From <= version && version < m.Until).OrderBy(m => m.IndexKey).ThenBy(m => m.Key).ThenBy(m => m.From)
                .Select(m => (m.IndexKey, m.Key)).ToList();
            Assert.Equal(visible, index.Ascending(null, version).Select(h => (h.IndexKey, h.Key)));
            Assert.Equal(visible.AsEnumerable().Reverse(), Down(index, version));
            var from = random.Next(60);
            Assert.Equal(visible.Where(v => v.IndexKey >= from), index.Ascending(IndexEntry<int, int, string>.Before(from), version).Select(h => (h.IndexKey, h.Key)));
            var after = visible[random.Next(visible.Count)];
            Assert.Equal(
                visible.Where(v => v.IndexKey > after.IndexKey || (v.IndexKey == after.IndexKey && v.Key > after.Key)),
                index.Ascending(IndexEntry<int, int, string>.AfterRecord(after.IndexKey, after.Key), version).Select(h => (h.IndexKey, h.Key)));
        }
    }

    /// <summary>The entries a reader at <paramref name="version"/> sees, walked down from the last.</summary>
    private static List<(int IndexKey, int Key)> Down(TestIndex index, long version)
    {
        var cursor = IndexCursor<int, int, string>.Descending(index, version);
        var hits = new List<(int, int)>();
        while (cursor.MoveNext(out var hit))
        {
            hits.Add((hit.IndexKey, hit.Key));
        }

        return hits;
    }

    private static VersionNode<string> Node(long version) => VersionNode<string>.Create(version, "v", deleted: false, shardId: 0, size: 1, next: null, location: null, expiresAt: 0);

    /// <summary>An index whose keys the test gives directly, built into a run and kept like a one-key index.</summary>
    private sealed class TestIndex : OrderedIndex<int, int, string>
    {
        private readonly Dictionary<int, (int Slot, IndexEntry<int, int, string>? Entry)> _current = new();

        public TestIndex()
            : base("test", "test", Comparer<int>.Default, Comparer<int>.Default)
        {
        }

        public override bool Unique => false;

        public void BuildFrom(List<(int IndexKey, int Key)> records, long version)
        {
            var entries = records.Select(r => new RunEntry<int, int, string>(r.IndexKey, r.Key, Node(version))).ToArray();
            entries.AsSpan().Sort(new RunEntryOrder<int, int, string>(Order));
            var run = new SortedRun<int, int, string>(entries, entries.Length);
            for (var slot = 0; slot < run.Count; slot++)
            {
                _current[run.KeyAt(slot)] = (slot, null);
            }

            Install(run);
            Serve(version);
        }

        public void Move(int key, int? indexKey, long version)
        {
            if (_current.Remove(key, out var place))
            {
                if (place.Entry is { } entry)
                {
                    End(entry, version);
                }
                else
                {
                    EndSlot(place.Slot, version);
                }
            }

            if (indexKey is { } to)
            {
                _current[key] = (0, Entries.Add(NewEntry(to, key, version, Node(version))));
            }
        }

        public override bool Build(IRecordHeads<int, string> map, long version, Func<VersionNode<string>, string> read, long now) =>
            throw new NotSupportedException();

        protected override void Apply(int key, bool deleted, string? value, long version, VersionNode<string>? node) =>
            throw new NotSupportedException();
    }
}
