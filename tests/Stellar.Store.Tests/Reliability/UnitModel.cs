using System.Globalization;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// The independent model of <see cref="UnitModelTests"/>: the committed state of every collection, the seeded steps
/// that are generated against it (some designed to be rejected), and the check of a reopened store against it, where a
/// step whose outcome was uncertain must be there whole or not at all.
/// </summary>
internal sealed class UnitModel(int collections, int keys, Random random)
{
    private readonly Dictionary<(int Collection, int Key), UnitItem> _state = new();
    private int _serial;

    public int Collections => collections;

    /// <summary>The steps of a burst, on disjoint keys.</summary>
    public List<UnitModelOp> NextBurst(int count)
    {
        var used = new HashSet<(int, int)>();
        var ops = new List<UnitModelOp>();
        for (var i = 0; i < count; i++)
        {
            var roll = random.Next(100);
            ops.Add(roll switch
            {
                < 5 => new UnitModelOp(UnitModelOp.Kind.Compaction, [], false, random.Next(collections)),
                < 35 => Op(UnitModelOp.Kind.Single, [random.Next(collections)], used),
                < 55 => Op(UnitModelOp.Kind.Batch, Enumerable.Repeat(random.Next(collections), random.Next(2, 5)).ToList(), used),
                _ => Op(UnitModelOp.Kind.Unit, UnitCollections(), used),
            });
        }

        return ops;
    }

    /// <summary>Applies an acknowledged step.</summary>
    public void Apply(UnitModelOp op)
    {
        foreach (var write in op.Writes)
        {
            Set(write.Collection, write.Key, write.Value);
        }
    }

    /// <summary>
    /// Checks <paramref name="actual"/> (every collection's records after a reopen): keys of <paramref name="uncertain"/>
    /// steps hold the step's before or after state, whole; every other key holds the model's value. Then takes what was
    /// found for each uncertain step into the model.
    /// </summary>
    public void Check(IReadOnlyList<Dictionary<int, UnitItem>> actual, IReadOnlyList<UnitModelOp> uncertain, string context)
    {
        var undecided = new HashSet<(int, int)>(uncertain.SelectMany(op => op.Writes.Select(w => (w.Collection, w.Key))));
        for (var c = 0; c < collections; c++)
        {
            foreach (var key in actual[c].Keys.Union(_state.Keys.Where(k => k.Collection == c).Select(k => k.Key)))
            {
                if (undecided.Contains((c, key)))
                {
                    continue;
                }

                var expected = _state.GetValueOrDefault((c, key));
                var found = actual[c].GetValueOrDefault(key);
                if (expected != found)
                {
                    throw new XunitException($"{context}: collection {c} key {key} is {Show(found)}, expected {Show(expected)}");
                }
            }
        }

        foreach (var op in uncertain)
        {
            var before = op.Writes.All(w => actual[w.Collection].GetValueOrDefault(w.Key) == _state.GetValueOrDefault((w.Collection, w.Key)));
            var after = !op.Rejected && op.Writes.All(w => actual[w.Collection].GetValueOrDefault(w.Key) == w.Value);
            if (!before && !after)
            {
                throw new XunitException($"{context}: an uncertain {op.What} is there in part: " + string.Join("; ", op.Writes.Select(w =>
                    $"c{w.Collection}/{w.Key} is {Show(actual[w.Collection].GetValueOrDefault(w.Key))}, before {Show(_state.GetValueOrDefault((w.Collection, w.Key)))}, after {Show(w.Value)}")));
            }

            if (after && !before)
            {
                Apply(op);
            }
        }
    }

    private static string Show(UnitItem? item) => item is null ? "absent" : string.Create(CultureInfo.InvariantCulture, $"{item.Gold}/{item.Note.Length}");

    private List<int> UnitCollections()
    {
        // 2 to 5 records over 2 to 4 collections, each collection at least once.
        var spread = Enumerable.Range(0, collections).OrderBy(_ => random.Next()).Take(random.Next(2, Math.Min(4, collections) + 1)).ToList();
        var records = random.Next(spread.Count, 6);
        var targets = new List<int>(spread);
        while (targets.Count < records)
        {
            targets.Add(spread[random.Next(spread.Count)]);
        }

        return targets;
    }

    private UnitModelOp Op(UnitModelOp.Kind kind, List<int> targets, HashSet<(int, int)> used)
    {
        // One write in five of a batch or unit step (and some single writes) breaks its precondition on purpose.
        var spoil = random.Next(100) < 20 ? random.Next(targets.Count) : -1;
        var writes = new List<UnitModelWrite>();
        var rejected = false;
        for (var i = 0; i < targets.Count; i++)
        {
            var c = targets[i];
            int key;
            do
            {
                key = random.Next(keys);
            }
            while (!used.Add((c, key)));

            var exists = _state.ContainsKey((c, key));
            UnitModelWrite.Kind what;
            if (i == spoil)
            {
                what = exists ? UnitModelWrite.Kind.Insert : UnitModelWrite.Kind.Update;
                rejected = true;
            }
            else
            {
                var roll = random.Next(100);
                what = exists
                    ? roll switch { < 40 => UnitModelWrite.Kind.Update, < 70 => UnitModelWrite.Kind.Upsert, _ => UnitModelWrite.Kind.Delete }
                    : roll switch { < 60 => UnitModelWrite.Kind.Insert, < 90 => UnitModelWrite.Kind.Upsert, _ => UnitModelWrite.Kind.Delete };
            }

            var value = what == UnitModelWrite.Kind.Delete
                ? null
                : new UnitItem(key, ++_serial, new string((char)('a' + (_serial % 26)), random.Next(100) < 8 ? random.Next(1_100, 3_000) : random.Next(0, 40)));
            writes.Add(new UnitModelWrite(c, key, what, value));
        }

        return new UnitModelOp(kind, writes, rejected);
    }

    private void Set(int collection, int key, UnitItem? value)
    {
        if (value is null)
        {
            _state.Remove((collection, key));
        }
        else
        {
            _state[(collection, key)] = value;
        }
    }
}
