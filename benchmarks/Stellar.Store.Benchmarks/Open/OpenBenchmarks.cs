using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Open;

/// <summary>
/// Workload 9: open a store of 1,000,000 small records (built once, untimed) until it serves a point read: Stellar
/// opens, verifies every block and loads the collection into memory; LiteDB, SQLite and ZoneTree open their files and
/// read pages on demand. Closed (untimed) after each iteration. The OS page cache is warm (the store was just
/// written): this is the open time of a server restart, not of a cold boot.
/// </summary>
[MemoryDiagnoser]
[WriteJob(3)]
[BenchmarkCategory("Open")]
public class OpenBenchmarks : StoreBenchmark
{
    private const int ProbeKey = 12_345;

    private string _directory = "";

    /// <summary>Records in the store.</summary>
    public static int StoreRecords => Scale.Records(1_000_000);

    [GlobalSetup(Target = nameof(LiteDb))]
    public void BuildLite()
    {
        _directory = Fresh(nameof(LiteDb));
        using var database = Lite.Open(_directory);
        Lite.Small(database).InsertBulk(Data.SmallRange(StoreRecords));
    }

    [GlobalSetup(Target = nameof(Sqlite_Normal))]
    public void BuildSqlite()
    {
        _directory = Fresh(nameof(Sqlite_Normal));
        using var sqlite = new Peers.Sqlite(_directory, SqliteSync.Normal);
        sqlite.BulkInsert(Data.SmallRange(StoreRecords));
    }

    [GlobalSetup(Target = nameof(ZoneTree_WalSync))]
    public void BuildZone()
    {
        _directory = Fresh(nameof(ZoneTree_WalSync));
        var tree = Zone.Open(_directory);
        foreach (var record in Data.SmallRange(StoreRecords))
        {
            tree.Upsert(record.Id, record);
        }

        Zone.EvictAndClose(tree);
    }

    [GlobalSetup(Target = nameof(Stellar_Plain))]
    public void BuildStellarPlain() => BuildStellar(nameof(Stellar_Plain), lz4: false, aes: false);

    [GlobalSetup(Target = nameof(Stellar_Lz4_AesGcm))]
    public void BuildStellarBoth() => BuildStellar(nameof(Stellar_Lz4_AesGcm), lz4: true, aes: true);

    [IterationCleanup]
    public void IterationCleanup() => CloseStores();

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        CloseMeasureAndDelete();
        DeleteRoot();
    }

    [Benchmark(Baseline = true)]
    public SmallRecord? LiteDb() => Lite.Small(ReopenLite(_directory)).FindById(ProbeKey);

    [Benchmark]
    public SmallRecord? Sqlite_Normal() => ReopenSqlite(_directory, SqliteSync.Normal).Get(ProbeKey);

    [Benchmark]
    public SmallRecord? ZoneTree_WalSync() => ReopenZone(_directory).TryGet(ProbeKey, out var record) ? record : null;

    [Benchmark]
    public SmallRecord? Stellar_Plain() =>
        ReopenStellar(_directory, Peers.Stellar.Options(Durability.WriteThrough)).Get(ProbeKey);

    [Benchmark]
    public SmallRecord? Stellar_Lz4_AesGcm() =>
        ReopenStellar(_directory, Peers.Stellar.Options(Durability.WriteThrough, lz4: true, aes: true)).Get(ProbeKey);

    private void BuildStellar(string method, bool lz4, bool aes)
    {
        _directory = Fresh(method);
        var (store, records) = Peers.Stellar.OpenSmall(_directory, Peers.Stellar.Options(Durability.WriteThrough, lz4, aes));
        records.BulkImportAsync(Data.SmallRange(StoreRecords)).GetAwaiter().GetResult();
        store.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
