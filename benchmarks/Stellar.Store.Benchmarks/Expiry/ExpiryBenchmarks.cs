using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Reads;

namespace Stellar.Store.Benchmarks.Expiry;

/// <summary>
/// What an expiry time costs a write: 64 callers, each awaiting its own upserts one at a time (WriteThrough), into a
/// store of 100,000 small records, written without an expiry or with one an hour away (a session renewed: every
/// upsert moves the record's entry in the collection's expiry index, and nothing expires during the run). The time is
/// per write across all callers (1 / throughput).
/// </summary>
[MemoryDiagnoser]
[WriteJob(5)]
[BenchmarkCategory("Expiry", Pairing.OsWrite)]
public class ExpiryBenchmarks : StoreBenchmark
{
    private const int Writes = 4096;
    private const int Callers = 64;
    private static readonly TimeSpan Lease = TimeSpan.FromHours(1);

    private SmallRecord[] _records = [];
    private SmallRecord[] _writes = [];
    private Callers _callers = null!;

    /// <summary>Whether each upsert carries an expiry time.</summary>
    [Params(false, true)]
    public bool Expiring { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(PointReadBenchmarks.StoreRecords).ToArray();
        _writes = Data.RandomUpdates(_records, Scale.Ops(Writes), renamed: false);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        var stellar = OpenStellar(nameof(Stellar_WriteThrough), Peers.Stellar.Options(Durability.WriteThrough));
        stellar.BulkImportAsync(_records).GetAwaiter().GetResult();
        var expiring = Expiring;
        _callers = Infrastructure.Callers.Tasks(Callers, async caller =>
        {
            for (var i = caller; i < _writes.Length; i += Callers)
            {
                await (expiring ? stellar.UpsertAsync(_writes[i], Lease) : stellar.UpsertAsync(_writes[i])).ConfigureAwait(false);
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
