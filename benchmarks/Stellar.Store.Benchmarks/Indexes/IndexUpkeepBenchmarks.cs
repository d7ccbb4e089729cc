using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// What keeping an index costs the collection's writer itself, apart from the I/O and the callers that
/// <see cref="IndexMaintenanceBenchmarks"/> includes: the writer's steps for 20,000 moves of records of a collection of
/// 100,000 small records, each to another score and name, in groups of 32 as commits publish them. <c>Index = none</c>
/// is the versioned map's apply and publish alone; <c>score</c> adds an index on the score and <c>name</c> one on the
/// name (strings that share their first eleven characters), built over the records first (not timed), which ends each
/// record's entry and adds its new one. One thread; the time is per move.
/// </summary>
[MemoryDiagnoser]
[WriteJob(10)]
[BenchmarkCategory("IndexUpkeep", Pairing.Cpu)]
public class IndexUpkeepBenchmarks
{
    private const int Records = 100_000;
    private const int Moves = 20_000;
    private const int Group = 32;

    private SmallRecord[] _records = [];
    private SmallRecord[] _moves = [];
    private VersionedMap<int, SmallRecord> _map = null!;
    private IIndexMaintainer<int, SmallRecord>? _index;

    /// <summary>The index kept: none, on the score, or on the name.</summary>
    [Params("none", "score", "name")]
    public string Index { get; set; } = "none";

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Records(Records)).ToArray();
        _moves = Data.RandomUpdates(_records, Scale.Ops(Moves), renamed: true);
    }

    [IterationSetup]
    public void IterationSetup()
    {
        _map = new VersionedMap<int, SmallRecord>(capacity: _records.Length);
        foreach (var record in _records)
        {
            _map.Apply(record.Id, 1, record, deleted: false, shardId: 1, size: 40);
        }

        _map.Publish(1, _records.Length);
        _index = Index switch
        {
            "score" => new SecondaryIndex<int, int, SmallRecord>("records", "by-score", r => r.Score, unique: false, Comparer<int>.Default, Comparer<int>.Default, keyEquality: null, orders: null),
            "name" => new SecondaryIndex<string, int, SmallRecord>("records", "by-name", r => r.Name, unique: false, StringComparer.Ordinal, Comparer<int>.Default, keyEquality: null, orders: null),
            _ => null,
        };
        if (_index is not null)
        {
            _index.Build(_map, 1, _ => throw new InvalidOperationException("every record is in memory"), now: 0);
            _map.HorizonMoved = _index.Trim;
        }
    }

    [Benchmark(OperationsPerInvoke = Moves)]
    public void Apply()
    {
        var version = 1L;
        for (var start = 0; start < _moves.Length; start += Group)
        {
            version++;
            for (var i = start; i < Math.Min(_moves.Length, start + Group); i++)
            {
                var move = _moves[i];
                _map.Apply(move.Id, version, move, deleted: false, shardId: 1, size: 40);
                _index?.Applied(move.Id, deleted: false, move, version, _map.LastApplied);
            }

            _map.Publish(version, _records.Length);
        }
    }
}
