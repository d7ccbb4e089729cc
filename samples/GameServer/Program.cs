using System.CommandLine;
using System.Net;
using Stellar.Store;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Running;

var bots = new Option<int>("--bots") { Description = "Bots to run.", DefaultValueFactory = _ => 200 };
var duration = new Option<int>("--duration") { Description = "Seconds the bots play before the logout wave.", DefaultValueFactory = _ => 30 };
var port = new Option<int?>("--port")
{
    Description = $"TCP port; 0 picks a free one and prints it. Default: 0 for the bot run, {RunOptions.DefaultServePort} with --serve.",
};
var bind = new Option<string>("--bind") { Description = "Address to listen on.", DefaultValueFactory = _ => "127.0.0.1" };
var data = new Option<string?>("--data")
{
    Description = "Store directory (created if missing, reused if it holds a store). Default: a fresh temporary directory, deleted at exit.",
    HelpName = "dir",
};
var durability = new Option<Durability>("--durability")
{
    Description = "Buffered | WriteThrough (survives a process crash) | Fsync (survives a machine crash).",
    DefaultValueFactory = _ => Durability.WriteThrough,
};
var noPersistence = new Option<bool>("--no-persistence") { Description = "Keep the state in in-memory dictionaries instead of the store: the baseline for the tick cost of persistence." };
var compare = new Option<bool>("--compare")
{
    Description = "Play the same game twice, without persistence and then with the store, and print what the store costs the tick (p99 ratio) and memory.",
};
var pairs = new Option<int>("--pairs")
{
    Description = "With --compare: pairs of runs to play (6 or more give the median ratio a 95% interval).",
    DefaultValueFactory = _ => 1,
};
var idleGc = new Option<long>("--idle-gc-bytes")
{
    Description = "Collect gen0 between two ticks once this many bytes were allocated since the last such collection, so that the GC does not pause a tick (0: leave the GC alone).",
    DefaultValueFactory = _ => RunOptions.DefaultIdleCollectBytes,
    HelpName = "bytes",
};
var sessionLease = new Option<int>("--session-lease")
{
    Description = "Seconds a player's session lasts unless renewed; the server renews it every third of that while the player is online, so after a crash it lapses on its own.",
    DefaultValueFactory = _ => (int)RunOptions.DefaultSessionLease.TotalSeconds,
    HelpName = "seconds",
};
var metrics = new Option<MetricsExport>("--metrics")
{
    Description = "None | Console: print the store's Stellar.Store instruments (writes, bytes, commit and fsync latency, queues, bytes per collection) every few seconds.",
    DefaultValueFactory = _ => MetricsExport.None,
};
var checkpointEvery = new Option<int>("--checkpoint-every")
{
    Description = "Take a checkpoint of the store every this many seconds while the bots play (0: never), report what each cost, and verify the newest.",
    HelpName = "seconds",
};
var rollback = new Option<string?>("--rollback")
{
    Description = "With --data and --keys: restore the world chunks named by --keys to what they were in this checkpoint, in one batch, and exit.",
    HelpName = "checkpoint",
};
var keys = new Option<string?>("--keys") { Description = "With --rollback: the chunk ids to restore, separated by commas.", HelpName = "ids" };
var serve = new Option<bool>("--serve") { Description = "Run the server only, for real clients, until Ctrl+C." };
var verify = new Option<string?>("--verify") { Description = "Open an existing store, check its invariants, and exit (0: OK, 1: failed, 2: no store, or one of an older layout).", HelpName = "dir" };

var root = new RootCommand(
    "Stellar.Store sample game server: a 20 Hz TCP game server that keeps every change in the store, driven by bots. " +
    "By default it runs the server and 200 bots for 30 s, then reopens the store and verifies gold, items and trades.")
{
    bots, duration, port, bind, data, durability, noPersistence, compare, pairs, idleGc, sessionLease, metrics, checkpointEvery, rollback, keys, serve, verify,
};

root.SetAction(async (parsed, cancellationToken) =>
{
    if (parsed.GetValue(verify) is { } directory)
    {
        return await VerifyMode.RunAsync(directory, Console.Out);
    }

    if (parsed.GetValue(rollback) is { } checkpoint)
    {
        var ids = (parsed.GetValue(keys) ?? "").Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var chunkIds = new List<long>();
        foreach (var id in ids)
        {
            if (!long.TryParse(id, System.Globalization.CultureInfo.InvariantCulture, out var chunkId))
            {
                Console.Error.WriteLine($"--keys: '{id}' is not a chunk id.");
                return 2;
            }

            chunkIds.Add(chunkId);
        }

        if (parsed.GetValue(data) is not { } rollbackData || chunkIds.Count == 0)
        {
            Console.Error.WriteLine("--rollback needs --data (the store) and --keys (the chunk ids to restore).");
            return 2;
        }

        return await RollbackMode.RunAsync(rollbackData, checkpoint, chunkIds, Console.Out);
    }

    if (!IPAddress.TryParse(parsed.GetValue(bind), out var address))
    {
        Console.Error.WriteLine($"--bind: '{parsed.GetValue(bind)}' is not an IP address.");
        return 2;
    }

    var serving = parsed.GetValue(serve);
    var options = new RunOptions
    {
        Bots = Math.Max(0, parsed.GetValue(bots)),
        Duration = TimeSpan.FromSeconds(Math.Max(1, parsed.GetValue(duration))),
        Bind = address,
        Port = parsed.GetValue(port) ?? (serving ? RunOptions.DefaultServePort : 0),
        DataDirectory = parsed.GetValue(data),
        Durability = parsed.GetValue(durability),
        NoPersistence = parsed.GetValue(noPersistence),
        Pairs = Math.Max(1, parsed.GetValue(pairs)),
        IdleCollectBytes = Math.Max(0, parsed.GetValue(idleGc)),
        SessionLease = TimeSpan.FromSeconds(Math.Max(1, parsed.GetValue(sessionLease))),
        Metrics = parsed.GetValue(metrics),
        CheckpointEvery = parsed.GetValue(checkpointEvery) is > 0 and var seconds ? TimeSpan.FromSeconds(seconds) : null,
    };

    try
    {
        if (serving)
        {
            return await ServeMode.RunAsync(options, Console.Out, cancellationToken);
        }

        if (parsed.GetValue(compare))
        {
            return await CompareMode.RunAsync(options, Console.Out, cancellationToken);
        }

        var result = await GameRun.RunAsync(options, Console.Out, cancellationToken);
        return result.Succeeded ? 0 : 1;
    }
    catch (OlderLayoutException e)
    {
        Console.Error.WriteLine(e.Message);
        return 2;
    }
});

return await root.Parse(args).InvokeAsync();
