using BenchmarkDotNet.Attributes;
using MessagePack;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using Stellar.Store.Codecs;

namespace Stellar.Store.Benchmarks.Open;

/// <summary>
/// Workload 9: open a store of 1,000,000 small records (built once, untimed) until it serves a point read: Stellar
/// opens, verifies every block and loads the collection into memory; LiteDB, SQLite and ZoneTree open their files and
/// read pages on demand. Closed (untimed) after each iteration. The OS page cache is warm (the store was just
/// written): this is the open time of a server restart, not of a cold boot. The <c>_AfterChurn</c> rows open a store
/// that lived like a game server's: 100,000 players loaded, then every player updated <see cref="ChurnRounds"/> times in
/// batches of 1,000 (one transaction each), then closed. <c>Floor_DeserializeOneCore</c> is the floor of the open
/// goal (open ≤ 1.5× it): the same 1,000,000 records deserialized on one thread from one byte array, no I/O.
/// </summary>
[MemoryDiagnoser]
[WriteJob(10)]
[BenchmarkCategory("Open", Pairing.Read)]
public class OpenBenchmarks : StoreBenchmark
{
    private const int ProbeKey = 12_345;

    private string _directory = "";
    private byte[] _serialized = [];

    /// <summary>Times every player is updated in the churned stores.</summary>
    public const int ChurnRounds = 3;

    private const int ChurnBatch = 1_000;

    /// <summary>Records in the store.</summary>
    public static int StoreRecords => Scale.Records(1_000_000);

    /// <summary>Players in the churned stores.</summary>
    public static int ChurnPlayers => Scale.Records(100_000);

    /// <summary>The churn: every player <see cref="ChurnRounds"/> times with a new score, in batches.</summary>
    private static IEnumerable<SmallRecord[]> ChurnBatches()
    {
        var random = new Random(11);
        for (var round = 1; round <= ChurnRounds; round++)
        {
            foreach (var chunk in Data.SmallRange(ChurnPlayers).Chunk(ChurnBatch))
            {
                yield return chunk.Select(p => new SmallRecord { Id = p.Id, Name = p.Name, Score = random.Next(0, 1_000_000), LastSeen = p.LastSeen.AddMinutes(round) }).ToArray();
            }
        }
    }

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

    [GlobalSetup(Targets = [nameof(Stellar_Plain), nameof(Stellar_Plain_TwoIndexes), nameof(Stellar_Plain_TwoIndexes_NoSavedOrder)])]
    public void BuildStellarPlain() => BuildStellar(nameof(Stellar_Plain), lz4: false, aes: false);

    [GlobalSetup(Target = nameof(Stellar_Lz4_AesGcm))]
    public void BuildStellarBoth() => BuildStellar(nameof(Stellar_Lz4_AesGcm), lz4: true, aes: true);

    [GlobalSetup(Target = nameof(Floor_DeserializeOneCore))]
    public void BuildFloor()
    {
        using var bytes = new MemoryStream();
        foreach (var record in Data.SmallRange(StoreRecords))
        {
            MessagePackSerializer.Serialize(bytes, record, RecordSerializer.Default.Options);
        }

        _serialized = bytes.ToArray();
    }

    [GlobalSetup(Target = nameof(LiteDb_AfterChurn))]
    public void ChurnLite()
    {
        _directory = Fresh(nameof(LiteDb_AfterChurn));
        using var database = Lite.Open(_directory);
        var players = Lite.Small(database);
        players.InsertBulk(Data.SmallRange(ChurnPlayers));
        foreach (var batch in ChurnBatches())
        {
            players.Upsert(batch);
        }
    }

    [GlobalSetup(Target = nameof(Sqlite_Normal_AfterChurn))]
    public void ChurnSqlite()
    {
        _directory = Fresh(nameof(Sqlite_Normal_AfterChurn));
        using var sqlite = new Peers.Sqlite(_directory, SqliteSync.Normal);
        sqlite.BulkInsert(Data.SmallRange(ChurnPlayers));
        foreach (var batch in ChurnBatches())
        {
            sqlite.UpsertMany(batch);
        }
    }

    [GlobalSetup(Target = nameof(ZoneTree_WalSync_AfterChurn))]
    public void ChurnZone()
    {
        _directory = Fresh(nameof(ZoneTree_WalSync_AfterChurn));
        var tree = Zone.Open(_directory);
        foreach (var record in Data.SmallRange(ChurnPlayers).Concat(ChurnBatches().SelectMany(b => b)))
        {
            tree.Upsert(record.Id, record);
        }

        tree.Dispose();
    }

    [GlobalSetup(Target = nameof(Stellar_Plain_AfterChurn))]
    public void ChurnStellar()
    {
        _directory = Fresh(nameof(Stellar_Plain_AfterChurn));
        var (store, records) = Peers.Stellar.OpenSmall(_directory, Peers.Stellar.Options(Durability.WriteThrough));
        records.BulkImportAsync(Data.SmallRange(ChurnPlayers)).GetAwaiter().GetResult();
        foreach (var batch in ChurnBatches())
        {
            records.WriteAsync(b =>
            {
                foreach (var player in batch)
                {
                    b.Upsert(player);
                }
            }).GetAwaiter().GetResult();
        }

        store.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

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

    /// <summary>
    /// <see cref="Stellar_Plain"/>, then two indexes declared (on the score and on the name) and built before the point
    /// read: the restart of a server that keeps a leaderboard and a name lookup, after a clean close (the untimed close
    /// of the iteration before, with the same indexes declared), so each build takes the order its index kept.
    /// </summary>
    [Benchmark]
    public SmallRecord? Stellar_Plain_TwoIndexes() => OpenWithTwoIndexes();

    /// <summary>
    /// <see cref="Stellar_Plain_TwoIndexes"/> with the kept orders deleted before each iteration (untimed): the open after
    /// a crash, or of a store whose indexes were never declared before, where each build sorts.
    /// </summary>
    [Benchmark]
    public SmallRecord? Stellar_Plain_TwoIndexes_NoSavedOrder() => OpenWithTwoIndexes();

    [IterationSetup(Target = nameof(Stellar_Plain_TwoIndexes_NoSavedOrder))]
    public void DeleteSavedOrders()
    {
        foreach (var file in Directory.GetFiles(_directory, "*.order"))
        {
            File.Delete(file);
        }
    }

    [Benchmark]
    public SmallRecord? Stellar_Lz4_AesGcm() =>
        ReopenStellar(_directory, Peers.Stellar.Options(Durability.WriteThrough, lz4: true, aes: true)).Get(ProbeKey);

    /// <summary>
    /// The records of <see cref="Stellar_Plain"/>, MessagePack-serialized back to back into one array (untimed),
    /// deserialized on one thread into a dictionary by key, with the options the store reads records with.
    /// </summary>
    [Benchmark]
    public SmallRecord? Floor_DeserializeOneCore()
    {
        var records = new Dictionary<int, SmallRecord>(StoreRecords);
        var rest = new ReadOnlyMemory<byte>(_serialized);
        while (!rest.IsEmpty)
        {
            var record = MessagePackSerializer.Deserialize<SmallRecord>(rest, RecordSerializer.Default.Options, out var read);
            records[record.Id] = record;
            rest = rest[read..];
        }

        return records.GetValueOrDefault(ProbeKey);
    }

    [Benchmark]
    public SmallRecord? LiteDb_AfterChurn() => Lite.Small(ReopenLite(_directory)).FindById(ProbeKey);

    [Benchmark]
    public SmallRecord? Sqlite_Normal_AfterChurn() => ReopenSqlite(_directory, SqliteSync.Normal).Get(ProbeKey);

    [Benchmark]
    public SmallRecord? ZoneTree_WalSync_AfterChurn() => ReopenZone(_directory).TryGet(ProbeKey, out var record) ? record : null;

    [Benchmark]
    public SmallRecord? Stellar_Plain_AfterChurn() =>
        ReopenStellar(_directory, Peers.Stellar.Options(Durability.WriteThrough)).Get(ProbeKey);

    private SmallRecord? OpenWithTwoIndexes()
    {
        var records = ReopenStellar(_directory, Peers.Stellar.Options(Durability.WriteThrough));
        var byScore = records.Index("by-score", r => r.Score);
        var byName = records.Index("by-name", r => r.Name);
        Task.WhenAll(byScore.Ready, byName.Ready).GetAwaiter().GetResult();
        return records.Get(ProbeKey);
    }

    private void BuildStellar(string method, bool lz4, bool aes)
    {
        _directory = Fresh(method);
        var (store, records) = Peers.Stellar.OpenSmall(_directory, Peers.Stellar.Options(Durability.WriteThrough, lz4, aes));
        records.BulkImportAsync(Data.SmallRange(StoreRecords)).GetAwaiter().GetResult();
        store.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
