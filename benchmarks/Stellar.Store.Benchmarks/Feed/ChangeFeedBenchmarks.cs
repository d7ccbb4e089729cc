using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using MessagePack;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Feed;

/// <summary>
/// The change feed: every change of a collection of 1,000,000 small records (bulk imported, so in blocks of 4,096)
/// read from disk by one consumer, against the floor of deserializing the same records from MessagePack bytes in
/// memory; and the live tail, one awaited upsert then its delivery to a feed waiting at the end, whose latency after
/// the write's acknowledgement is measured per write and its 50th and 99th percentiles printed at cleanup.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("ChangeFeed", Pairing.Read)]
public class ChangeFeedBenchmarks : StoreBenchmark
{
    private static readonly int RecordCount = Scale.Records(1_000_000);

    private readonly List<double> _afterAcknowledgement = new();
    private Collection<int, SmallRecord> _stellar = null!;
    private byte[][] _serialized = null!;
    private IAsyncEnumerator<Change<int, SmallRecord>>? _tail;
    private int _next;

    [GlobalSetup(Target = nameof(Stellar_FeedFromDisk))]
    public void SetupFromDisk()
    {
        _stellar = OpenStellar(nameof(Stellar_FeedFromDisk), Peers.Stellar.Options(Durability.WriteThrough));
        _stellar.BulkImportAsync(Data.SmallRange(RecordCount)).GetAwaiter().GetResult();
        SideMetrics.Record(this, nameof(Stellar_FeedFromDisk), SideMetrics.OpsPerOp, RecordCount);
    }

    [GlobalSetup(Target = nameof(MessagePack_DeserializeFloor))]
    public void SetupFloor()
    {
        _serialized = Data.SmallRange(RecordCount).Select(r => MessagePackSerializer.Serialize(r)).ToArray();
        SideMetrics.Record(this, nameof(MessagePack_DeserializeFloor), SideMetrics.OpsPerOp, RecordCount);
    }

    [GlobalSetup(Target = nameof(Stellar_LiveTail))]
    public void SetupLiveTail()
    {
        _stellar = OpenStellar(nameof(Stellar_LiveTail), Peers.Stellar.Options(Durability.WriteThrough));
        _tail = _stellar.Changes(ChangePosition.Now).GetAsyncEnumerator();
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        if (_afterAcknowledgement.Count > 0)
        {
            _afterAcknowledgement.Sort();
            Console.WriteLine($"// Live tail after acknowledgement over {_afterAcknowledgement.Count} writes: p50 {Percentile(0.50):F1} µs, p99 {Percentile(0.99):F1} µs");
        }

        _tail?.DisposeAsync().AsTask().ContinueWith(static _ => { }, TaskScheduler.Default);
        CloseMeasureAndDelete();
        DeleteRoot();
    }

    /// <summary>The floor: the same records deserialized from bytes already in memory, one after another.</summary>
    [Benchmark(Baseline = true)]
    public long MessagePack_DeserializeFloor()
    {
        long sum = 0;
        foreach (var bytes in _serialized)
        {
            sum += MessagePackSerializer.Deserialize<SmallRecord>(bytes).Score;
        }

        return sum;
    }

    /// <summary>Every change from the start, read from the shard files, verified and decoded.</summary>
    [Benchmark]
    public async Task<long> Stellar_FeedFromDisk()
    {
        long sum = 0;
        var seen = 0;
        await foreach (var change in _stellar.Changes(ChangePosition.Start))
        {
            sum += change.Value!.Score;
            if (++seen == RecordCount)
            {
                break;
            }
        }

        return sum;
    }

    /// <summary>One upsert, awaited, then its delivery to the feed waiting at the end.</summary>
    [Benchmark]
    public async Task<int> Stellar_LiveTail()
    {
        var next = _tail!.MoveNextAsync();
        await _stellar.UpsertAsync(Data.Small(++_next));
        var acknowledged = Stopwatch.GetTimestamp();
        await next;
        _afterAcknowledgement.Add(Stopwatch.GetElapsedTime(acknowledged).TotalMicroseconds);
        return _tail.Current.Key;
    }

    private double Percentile(double p) => _afterAcknowledgement[Math.Min(_afterAcknowledgement.Count - 1, (int)(p * _afterAcknowledgement.Count))];
}
