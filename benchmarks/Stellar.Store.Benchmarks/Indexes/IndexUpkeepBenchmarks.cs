using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Benchmarks.Indexes;

/// <summary>
/// What keeping an index costs the collection's writer itself, apart from the I/O and the callers that
/// <see cref="IndexMaintenanceBenchmarks"/> includes: the writer's steps for 20,000 moves of records of a collection of
/// 100,000 small records, each to another score and name (a record picked again moves again, to the next version of
/// its last write), in groups of 32 as commits publish them. <c>Index = none</c>
/// is the versioned map's apply and publish alone; <c>score</c> adds an index on the score and <c>name</c> one on the
/// name (strings that share their first eleven characters), built over the records first (not timed), which ends each
/// record's entry and adds its new one. <c>Settled = true</c> first moves every record once more (not timed), as on a
/// server that has run for a while: then every record's entry is in the index's list, which is a level deeper, and each
/// timed move ends a listed entry rather than one of the build's. One thread; the time is per move.
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
    private SmallRecord[] _settling = [];
    private VersionedMap<int, SmallRecord> _map = null!;
    private IIndexMaintainer<int, SmallRecord>? _index;
    private long _version;

    /// <summary>The index kept: none, on the score, or on the name.</summary>
    [Params("none", "score", "name")]
    public string Index { get; set; } = "none";

    /// <summary>Whether every record moved once before the timed moves.</summary>
    [Params(false, true)]
    public bool Settled { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Records(Records)).ToArray();
        _moves = Data.ChainedUpdates(_records, Scale.Ops(Moves), renamed: true);

        // Two steps on, so that each record's first timed move (one step on) moves it too; in a seeded random order, so
        // that the list grows as writes make it grow.
        _settling = _records.Select(record => Data.Next(Data.Next(record, renamed: true), renamed: true)).ToArray();
        new Random(7).Shuffle(_settling);
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

        _version = 1;

        // The index fills the writer's table of where each record's entry lies after its build, and the first write waits
        // for that: one write of a record as it is, untimed, so that the timed moves measure the upkeep alone.
        Move([_records[0]]);
        if (Settled)
        {
            Move(_settling);
        }
    }

    [Benchmark(OperationsPerInvoke = Moves)]
    public void Apply() => Move(_moves);

    /// <summary>Applies <paramref name="moves"/> in commit groups of <see cref="Group"/>, each published as one version.</summary>
    private void Move(SmallRecord[] moves)
    {
        for (var start = 0; start < moves.Length; start += Group)
        {
            _version++;
            for (var i = start; i < Math.Min(moves.Length, start + Group); i++)
            {
                var move = moves[i];
                _map.Apply(move.Id, _version, move, deleted: false, shardId: 1, size: 40);
                _index?.Applied(move.Id, deleted: false, move, _version, _map.LastApplied);
            }

            _map.Publish(_version, _records.Length);
        }
    }
}
