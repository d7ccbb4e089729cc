using BenchmarkDotNet.Attributes;
using LiteDB;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using Stellar.Store.Benchmarks.Reads;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// The leaderboard question: the 100 records with the highest scores out of 100,000 small records, materialized as a
/// list. Every peer answers it from an index on the score, as its experts would set it up: SQLite
/// <c>ORDER BY score DESC LIMIT 100</c> over <c>CREATE INDEX ... (score)</c> (page cache and memory map large enough
/// to hold the database), LiteDB <c>Query().OrderByDescending(score).Limit(100)</c> over <c>EnsureIndex(score)</c>,
/// and ours <c>Index("by-score").Top(100)</c>. Today's way without an index, a scan of every record and a sort, is the
/// row the index must beat by three orders of magnitude. The dry-run test checks that every row returns the same ids.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("TopN", Pairing.Read)]
public class TopNBenchmarks : StoreBenchmark
{
    /// <summary>How many records each row returns.</summary>
    internal const int Count = 100;

    private Collection<int, SmallRecord> _stellar = null!;
    private CollectionIndex<int, int, SmallRecord> _byScore = null!;
    private ILiteCollection<SmallRecord> _lite = null!;
    private Sqlite _sqlite = null!;

    private static SmallRecord[] Records => Data.SmallRange(PointReadBenchmarks.StoreRecords).ToArray();

    [GlobalSetup(Target = nameof(LiteDb_IndexTop))]
    public void SetupLite()
    {
        _lite = Lite.Small(OpenLite(nameof(LiteDb_IndexTop)));
        _lite.EnsureIndex(r => r.Score);
        _lite.InsertBulk(Records);
    }

    [GlobalSetup(Target = nameof(Sqlite_IndexTop))]
    public void SetupSqlite()
    {
        _sqlite = OpenSqlite(nameof(Sqlite_IndexTop), SqliteSync.Normal);
        _sqlite.IndexScore();
        _sqlite.BulkInsert(Records);
    }

    [GlobalSetup(Targets = [nameof(Stellar_IndexTop), nameof(Stellar_ScanAndSort)])]
    public void SetupStellar()
    {
        _stellar = OpenStellar(nameof(Stellar_IndexTop), Peers.Stellar.Options(Durability.WriteThrough));
        _stellar.BulkImportAsync(Records).GetAwaiter().GetResult();
        _byScore = _stellar.Index("by-score", r => r.Score);
        _byScore.Ready.GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        CloseMeasureAndDelete();
        DeleteRoot();
    }

    [Benchmark(Baseline = true)]
    public List<SmallRecord> Sqlite_IndexTop() => _sqlite.Top(Count);

    [Benchmark]
    public List<SmallRecord> LiteDb_IndexTop() => _lite.Query().OrderByDescending(r => r.Score).Limit(Count).ToList();

    [Benchmark]
    public IReadOnlyList<SmallRecord> Stellar_IndexTop() => _byScore.Top(Count);

    /// <summary>Without an index: every record scanned from one snapshot, sorted, the first 100 taken.</summary>
    [Benchmark]
    public List<SmallRecord> Stellar_ScanAndSort() => _stellar.Query().OrderByDescending(r => r.Score).Take(Count).ToList();
}
