using System.Collections.Concurrent;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>The version map's pin protocol against a writer that publishes as fast as it can.</summary>
public sealed class VersionedMapConcurrencyTests
{
    /// <summary>
    /// The writer rewrites every key at every version, so any version a reader has pinned is cut from every chain at
    /// the writer's next commit unless the writer saw the pin. Readers pin, then read every key at the pinned
    /// version: since every key was written at every version, each must be there, written at exactly that version.
    /// </summary>
    [Fact]
    public void Pin_WhileTheWriterPublishesAndTrims_KeepsEveryKeyReadableAtThePinnedVersion()
    {
        const int Keys = 32;
        var duration = Stress.Duration(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(20));
        var map = new VersionedMap<int, long>();
        for (var key = 0; key < Keys; key++)
        {
            map.Apply(key, 1, 1, deleted: false, shardId: 1, size: 1);
        }

        map.Publish(1, Keys);
        using var stop = new CancellationTokenSource(duration);
        var failures = new ConcurrentQueue<string>();
        long pins = 0;

        var writer = new Thread(() =>
        {
            for (var version = 2L; !stop.IsCancellationRequested; version++)
            {
                for (var key = 0; key < Keys; key++)
                {
                    map.Apply(key, version, version, deleted: false, shardId: 1, size: 1);
                }

                map.Publish(version, Keys);
            }
        });
        var readers = Enumerable.Range(0, 3).Select(_ => new Thread(() =>
        {
            while (!stop.IsCancellationRequested && failures.IsEmpty)
            {
                var state = map.Pin();
                for (var key = 0; key < Keys; key++)
                {
                    if (!map.TryGetAt(key, state.Version, now: 0, out var node) || node.Version != state.Version || node.Value != state.Version)
                    {
                        failures.Enqueue($"key {key} at pinned version {state.Version} read {(node is null ? "nothing" : $"version {node.Version}")}");
                        break;
                    }
                }

                map.Unpin(state.Version);
                Interlocked.Increment(ref pins);
            }
        })).ToList();

        writer.Start();
        readers.ForEach(r => r.Start());
        writer.Join();
        readers.ForEach(r => r.Join());

        Assert.Empty(failures);
        Assert.True(pins > 0);
    }
}
