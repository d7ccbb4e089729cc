using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Reads;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// What keeping indexes costs the writes: 64 callers, each awaiting its own upserts one at a time (WriteThrough),
/// into a store of 100,000 small records with no index, an index on the score, or indexes on the score and the name.
/// Every upsert changes both fields (a record picked again gets the next version of its last write), so that every
/// index moves the record to another entry (the most an index costs a write). The time is per write across all callers
/// (1 / throughput).
/// </summary>
[MemoryDiagnoser]
[WriteJob(10)]
[BenchmarkCategory("IndexMaintenance", Pairing.OsWrite)]
public class IndexMaintenanceBenchmarks : StoreBenchmark
{
    private const int Writes = 32_768;
    private const int Callers = 64;

    private SmallRecord[] _records = [];
    private SmallRecord[] _writes = [];
    private Callers _callers = null!;

    /// <summary>Indexes kept: 0, the score, or the score and the name.</summary>
    [Params(0, 1, 2)]
    public int Indexes { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(PointReadBenchmarks.StoreRecords).ToArray();
        _writes = Data.ChainedUpdates(_records, Scale.Ops(Writes), renamed: true);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        var stellar = OpenStellar(nameof(Stellar_WriteThrough), Peers.Stellar.Options(Durability.WriteThrough));
        stellar.BulkImportAsync(_records).GetAwaiter().GetResult();
        if (Indexes >= 1)
        {
            stellar.Index("by-score", r => r.Score).Ready.GetAwaiter().GetResult();
        }

        if (Indexes >= 2)
        {
            stellar.Index("by-name", r => r.Name).Ready.GetAwaiter().GetResult();
        }

        // An index fills the writer's table of where each record's entry lies after it answers, and the first write
        // waits for that: one write of a record as it is, untimed, so that the timed writes measure the upkeep alone.
        stellar.UpsertAsync(_records[0]).GetAwaiter().GetResult();

        _callers = Infrastructure.Callers.Tasks(Callers, async caller =>
        {
            for (var i = caller; i < _writes.Length; i += Callers)
            {
                await stellar.UpsertAsync(_writes[i]).ConfigureAwait(false);
            }
        });
    }

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(OperationsPerInvoke = Writes)]
    public Task Stellar_WriteThrough() => _callers.RunAsync();
}
