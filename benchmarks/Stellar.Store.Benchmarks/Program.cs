using BenchmarkDotNet.Running;
using Stellar.Store.Benchmarks.Game;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Memory;
using Stellar.Store.Benchmarks.Report;

// Verbs:
//   all [BenchmarkDotNet args]  every benchmark, then the game mix, the memory verb, then the report
//   game [seconds] [runs]       only the game mix (workload 8), 10 s per run and 6 runs per store by default
//   report                      only the report, from the last run's CSV files
//   memory [records]            managed and resident bytes per record, Dictionary against an opened store (1,000,000)
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
    case "memory":
        return MemoryFootprint.Run(Paths.Results, rest.Length > 0 && int.TryParse(rest[0], out var records) ? records : Scale.Records(1_000_000));
    case MemoryFootprint.ChildVerb:
        return MemoryFootprint.Child(rest);
    case "all":
        SideMetrics.Clear();
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(["--filter", "*", .. rest], BenchConfig.Create());
        GameMix.Run(Paths.Results, GameDuration([]), GameMix.DefaultRuns);
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
