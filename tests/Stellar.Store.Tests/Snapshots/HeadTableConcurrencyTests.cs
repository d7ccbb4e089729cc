using System.Collections.Concurrent;
using System.Collections.Immutable;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>
/// The version map's own hash table under one writer that inserts, updates and deletes (so slots are removed, reused
/// and the table is rebuilt, growing and shrinking) while readers read without locks. The oracle is an independent
/// model: the writer records the whole state of every published version as an immutable dictionary.
/// </summary>
public sealed class HeadTableConcurrencyTests
{
    [Fact]
    public void Readers_WhileTheWriterInsertsUpdatesDeletesAndRebuilds_SeeExactlyAPublishedState()
    {
        var duration = Stress.Duration(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(20));
        var map = new VersionedMap<int, long>();
        var models = new ConcurrentDictionary<long, ImmutableDictionary<int, long>>();
        models[0] = ImmutableDictionary<int, long>.Empty;
        var nextKey = 0;
        var keySpace = 0;
        using var stop = new CancellationTokenSource(duration);
        var failures = new ConcurrentQueue<string>();
        long checkedReads = 0;

        var writer = new Thread(() =>
        {
            var random = new Random(11);
            var model = ImmutableDictionary<int, long>.Empty;
            var live = new List<int>();
            for (var version = 1L; !stop.IsCancellationRequested && failures.IsEmpty; version++)
            {
                // A commit of a few writes; a key is written at most once per commit. Deletes lean towards old keys
                // and inserts take fresh ones, so removed slots pile up and force rebuilds; the live set breathes
                // between a few and a few thousand keys, so the table grows and shrinks.
                var touched = new HashSet<int>();
                var target = (version / 5_000) % 2 == 0 ? 3_000 : 50;
                for (var w = random.Next(1, 8); w > 0; w--)
                {
                    var roll = random.Next(100);
                    if (live.Count > target || (roll < 30 && live.Count > 0))
                    {
                        var at = random.Next(Math.Min(live.Count, 16));
                        var key = live[at];
                        if (touched.Add(key))
                        {
                            live.RemoveAt(at);
                            map.Apply(key, version, 0, deleted: true, shardId: 1, size: 1);
                            model = model.Remove(key);
                        }
                    }
                    else if (roll < 60 && live.Count > 0)
                    {
                        var key = live[random.Next(live.Count)];
                        if (touched.Add(key))
                        {
                            map.Apply(key, version, (version * 1_000_000) + key, deleted: false, shardId: 1, size: 1);
                            model = model.SetItem(key, (version * 1_000_000) + key);
                        }
                    }
                    else
                    {
                        // Sometimes a deleted key comes back: its removed slot is taken again.
                        var key = random.Next(4) == 0 && nextKey > 0 ? random.Next(nextKey) : nextKey++;
                        if (!model.ContainsKey(key) && touched.Add(key))
                        {
                            live.Add(key);
                            map.Apply(key, version, (version * 1_000_000) + key, deleted: false, shardId: 1, size: 1);
                            model = model.SetItem(key, (version * 1_000_000) + key);
                        }
                    }
                }

                models[version] = model;
                Volatile.Write(ref keySpace, nextKey);
                map.Publish(version, model.Count);
            }
        });

        var pinnedReaders = Enumerable.Range(0, 2).Select(_ => new Thread(() =>
        {
            while (!stop.IsCancellationRequested && failures.IsEmpty)
            {
                var state = map.Pin();
                var expected = models[state.Version];
                var scanned = new Dictionary<int, long>();
                foreach (var (key, head) in map.Heads)
                {
                    if (VersionedMap<int, long>.VisibleAt(head, state.Version) is { } node && !scanned.TryAdd(key, node.Value))
                    {
                        failures.Enqueue($"key {key} scanned twice at version {state.Version}");
                    }
                }

                if (scanned.Count != expected.Count || scanned.Any(p => !expected.TryGetValue(p.Key, out var v) || v != p.Value))
                {
                    failures.Enqueue($"the scan at version {state.Version} found {scanned.Count} keys, the model {expected.Count}, or other values");
                }

                foreach (var (key, value) in expected)
                {
                    if (!map.TryGetAt(key, state.Version, now: 0, out var node) || node.Value != value)
                    {
                        failures.Enqueue($"key {key} at pinned version {state.Version} read {(node is null ? "nothing" : node.Value)}, the model {value}");
                        break;
                    }
                }

                map.Unpin(state.Version);
                Interlocked.Increment(ref checkedReads);
            }
        })).ToList();

        var latestReader = new Thread(() =>
        {
            var random = new Random(5);
            while (!stop.IsCancellationRequested && failures.IsEmpty)
            {
                var key = random.Next(Math.Max(1, Volatile.Read(ref keySpace)));
                var before = map.Published.Version;
                var found = map.TryGetLatest(key, out var node);
                var after = map.Published.Version;

                // The answer must be the key's state at some version published while the read ran.
                var ok = false;
                for (var v = before; v <= after && !ok; v++)
                {
                    var present = models[v].TryGetValue(key, out var value);
                    ok = present == found && (!found || node!.Value == value);
                }

                if (!ok)
                {
                    failures.Enqueue($"key {key} read between versions {before} and {after}: {(found ? node!.Value : "nothing")}");
                }

                Interlocked.Increment(ref checkedReads);
            }
        });

        writer.Start();
        pinnedReaders.ForEach(r => r.Start());
        latestReader.Start();
        writer.Join();
        pinnedReaders.ForEach(r => r.Join());
        latestReader.Join();

        Assert.Empty(failures);
        Assert.True(checkedReads > 0);
    }
}
