using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Checkpoints;

/// <summary>
/// A checkpoint of a store of about 1 GB on disk (<see cref="StoreRecords"/> records of about 2 KB, uncompressed, values
/// kept on disk), built once, untimed. Each iteration writes <see cref="WritesBetween"/> records (untimed), then takes a
/// checkpoint (timed), which is deleted after (untimed): the checkpoint after a checkpoint a game server takes every few
/// seconds. The time is the whole checkpoint (cut, copy of the active shard's committed bytes, flushes); the
/// <c>Pause µs</c> column is the median of <see cref="CheckpointInfo.WriterPause"/>, the time the collection's writer
/// held its writes, <c>Copied KiB</c> the median bytes the checkpoint copied, and <c>Written KiB</c> the median bytes the
/// store's shard files grew by since the last checkpoint (the goal: copied at most that, in every iteration). No peer has the same operation (a
/// consistent cut while writes go on, sharing sealed files): SQLite's online backup copies every page, so the rows stand
/// alone.
/// </summary>
[WriteJob(10)]
[BenchmarkCategory("Checkpoint", Pairing.OsWrite)]
public class CheckpointBenchmarks : StoreBenchmark
{
    /// <summary>Records between two checkpoints.</summary>
    public const int WritesBetween = 500;

    private readonly List<double> _pauses = new();
    private readonly List<double> _copied = new();
    private readonly List<double> _written = new();
    private StellarStore? _store;
    private Collection<int, LargeRecord>? _records;
    private int _next;

    /// <summary>Records in the store: about 1 GB of shards.</summary>
    public static int StoreRecords => Scale.Records(500_000);

    [GlobalSetup]
    public void Build()
    {
        var options = new StoreOptions { Compression = Compression.None, LargeValueThreshold = 1024 };
        (_store, _records) = Peers.Stellar.OpenLarge(Fresh(nameof(Checkpoint)), options);
        _records.BulkImportAsync(Enumerable.Range(0, StoreRecords).Select(i => Data.Large(i))).GetAwaiter().GetResult();
        var bytes = Directory.EnumerateFiles(_store.Path, "*.shard").Sum(f => new FileInfo(f).Length);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.DiskBytes, bytes);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.RecordsStored, StoreRecords);
    }

    [IterationSetup]
    public void WriteSome()
    {
        var before = ShardBytes();
        for (var i = 0; i < WritesBetween; i++)
        {
            _records!.UpsertAsync(Data.Large(_next++ % StoreRecords)).GetAwaiter().GetResult();
        }

        _written.Add(ShardBytes() - before);
    }

    [Benchmark]
    public async Task Checkpoint()
    {
        var info = await _store!.CheckpointAsync("bench");
        _pauses.Add(info.WriterPause.TotalMicroseconds);
        _copied.Add(info.CopiedBytes);
    }

    [IterationCleanup]
    public void DeleteCheckpoint() => _store!.DeleteCheckpoint("bench");

    [GlobalCleanup]
    public void Close()
    {
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.WriterPauseMicroseconds, Median(_pauses));
        if (_pauses.Count > 0)
        {
            Console.WriteLine($"// writer pause per checkpoint, µs: min {_pauses.Min():F1}, median {Median(_pauses):F1}, max {_pauses.Max():F1} over {_pauses.Count}; copied KiB: min {_copied.Min() / 1024:F0}, max {_copied.Max() / 1024:F0}");
            Console.WriteLine($"// writer pause per checkpoint in order, µs: {string.Join(", ", _pauses.Select(p => p.ToString("F0", System.Globalization.CultureInfo.InvariantCulture)))}");
            Console.WriteLine($"// copied / written per checkpoint in order, KiB: {string.Join(", ", _copied.Zip(_written, (c, w) => $"{c / 1024:F0}/{w / 1024:F0}"))}");
        }

        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.CopiedBytes, Median(_copied));
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.WrittenBytes, Median(_written));
        _store!.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    private long ShardBytes() => Directory.EnumerateFiles(_store!.Path, "*.shard").Sum(f => new FileInfo(f).Length);

    private static double Median(List<double> values) => values.Count == 0 ? 0 : values.Order().ElementAt(values.Count / 2);
}
