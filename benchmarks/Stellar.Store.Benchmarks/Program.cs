using BenchmarkDotNet.Running;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Indexes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Memory;
using Stellar.Store.Benchmarks.Open;
using Stellar.Store.Benchmarks.Persistence;
using Stellar.Store.Benchmarks.Report;
using Stellar.Store.Benchmarks.Units;

// Verbs:
//   all [BenchmarkDotNet args]  every benchmark, then the game mix, the units, upkeep and opens verbs, the memory verb, then the report
//   game [seconds] [runs]       only the game mix (workload 8), 10 s per run and 6 runs per store by default
//   report                      only the report, from the last run's CSV files
//   units [seconds] [runs]      only writes across collections against single-collection batches, 64 callers (5 s, 6 runs)
//   persistence [runs] [json]   only Akka.Persistence journals: Persist with 1, 100, 1,000 actors, and recovery (6 runs);
//                               json: the events through Akka's default JSON serializer instead of a binary one
//   memory [records]            managed and resident bytes per record, Dictionary against an opened store (1,000,000)
//   indexbuild [runs]           only how long writes wait while an index is added to a live collection (6 runs)
//   upkeep [runs]               only what keeping one and two indexes costs 64 callers' writes, rows side by side (12 rounds)
//   opens [runs] [fresh] [atload]  only the open with two indexes against the open without, side by side (12 rounds); fresh: each open in a process of its own; atload: the indexes declared with the load
//   anything else               BenchmarkDotNet's own command line (--filter, --anyCategories, --list flat, ...)
var verb = args.FirstOrDefault();
var rest = args.Skip(1).ToArray();
var readme = Path.Combine(Paths.BenchmarksFolder, "README.md");
switch (verb)
{
    case "report":
        return ReportCommand.Run(Paths.Artifacts, Paths.Results, readme);
    case "game":
        GameMix.Run(Paths.Results, GameDuration(rest), GameRuns(rest));
        return 0;
    case "units":
        UnitMix.Run(Paths.Results, UnitDuration(rest), rest.Length > 1 && int.TryParse(rest[1], out var unitRuns) ? unitRuns : UnitMix.DefaultRuns);
        return 0;
    case "persistence":
        PersistenceMix.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var persistenceRuns) ? persistenceRuns : PersistenceMix.DefaultRuns,
            rest.Contains("json") ? EventSerialization.Json : EventSerialization.Binary);
        return 0;
    case "indexbuild":
        IndexBuildMix.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var buildRuns) ? buildRuns : IndexBuildMix.DefaultRuns);
        return 0;
    case "upkeep":
        UpkeepMix.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var upkeepRuns) ? upkeepRuns : UpkeepMix.DefaultRuns);
        return 0;
    case "opens":
        OpenPairMix.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var openRuns) ? openRuns : OpenPairMix.DefaultRuns, fresh: rest.Contains("fresh"), atLoad: rest.Contains("atload"));
        return 0;
    case OpenPairMix.ChildVerb:
        return OpenPairMix.Child(rest);
    case "memory":
        return MemoryFootprint.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var records) ? records : Scale.Records(1_000_000));
    case MemoryFootprint.ChildVerb:
        return MemoryFootprint.Child(rest);
    case "all":
        SideMetrics.Clear();
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(["--filter", "*", .. rest], BenchConfig.Create());
        GameMix.Run(Paths.Results, GameDuration([]), GameMix.DefaultRuns);
        UnitMix.Run(Paths.Results, UnitDuration([]), UnitMix.DefaultRuns);
        UpkeepMix.Run(Paths.Results, UpkeepMix.DefaultRuns);
        OpenPairMix.Run(Paths.Results, OpenPairMix.DefaultRuns);
        OpenPairMix.Run(Paths.Results, OpenPairMix.DefaultRuns, fresh: true);
        if (MemoryFootprint.Run(Paths.Results, Scale.Records(1_000_000)) != 0)
        {
            return 1;
        }

        return ReportCommand.Run(Paths.Artifacts, Paths.Results, readme);
    default:
        SideMetrics.Clear();
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchConfig.Create());
        return 0;
}

static TimeSpan GameDuration(string[] args) =>
    TimeSpan.FromSeconds(args.Length > 0 && int.TryParse(args[0], out var seconds) ? seconds : Scale.Dry ? 1 : 10);

static int GameRuns(string[] args) =>
    args.Length > 1 && int.TryParse(args[1], out var runs) ? runs : GameMix.DefaultRuns;

static TimeSpan UnitDuration(string[] args) =>
    TimeSpan.FromSeconds(args.Length > 0 && double.TryParse(args[0], System.Globalization.CultureInfo.InvariantCulture, out var seconds) ? seconds : Scale.Dry ? 0.5 : 5);
