using System.Diagnostics;
using System.Globalization;
using System.Text;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// Workload 8, a measured run rather than a BenchmarkDotNet benchmark (it is about latency under a mixed load, not
/// the mean of one operation): 10,000 players, each updated at 20 Hz by 64 writers (every tick a writer writes the
/// updates of its players the way a game server would with that store, see <see cref="IGameStore.WriteTickAsync"/>),
/// while 16 readers each run a top-100 leaderboard query at 20 Hz.
/// Latency is measured from each operation's intended start on a fixed schedule (tick k of a writer at k × 50 ms;
/// reader r's query k at k × 50 ms plus r's stagger), not from when a late caller got round to it, so a store that
/// falls behind shows its backlog instead of hiding it (coordinated omission); an operation whose wait woke before its
/// intended start counts from its actual start, so that none counts as faster than it took. Each store plays the mix for a short
/// untimed warm-up first, so that no row pays the process's cold start. Writers and readers are made before
/// the clock starts; those of blocking peers run on their own threads, Stellar's as tasks. At the deadline no new
/// operation starts; operations that were due and not started count as missed, with their wait so far as their
/// latency (a lower bound, so percentiles of a store that fell behind are lower bounds too).
/// </summary>
internal static class GameMix
{
    /// <summary>Writers, each owning the players whose id modulo this is its index.</summary>
    public const int Writers = 64;

    /// <summary>Leaderboard readers.</summary>
    public const int Readers = 16;

    /// <summary>Ticks per second of every writer and reader.</summary>
    public const int TickHz = 20;

    /// <summary>Players on the leaderboard.</summary>
    public const int TopCount = 100;

    /// <summary>Players in the mix (a few hundred in a dry run).</summary>
    public static int Players => Scale.Dry ? 640 : 10_000;

    /// <summary>Runs of each store in a default <c>game</c> or <c>all</c> run: six, the fewest whose min–max covers the median at 95%.</summary>
    public static int DefaultRuns => Scale.Dry ? 2 : 6;

    /// <summary>
    /// Runs the mix <paramref name="runs"/> times against every store, in rounds (every store once per round, so a
    /// slow minute of the machine falls on all of them alike); writes every run to <c>game-mix.csv</c> and the
    /// medians with their intervals to <c>game-mix.md</c> in <paramref name="resultsFolder"/>.
    /// </summary>
    public static void Run(string resultsFolder, TimeSpan duration, int runs)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        var players = Data.SmallRange(Players).ToArray();
        var rows = new List<GameRow>();
        for (var run = 1; run <= runs; run++)
        {
            foreach (var open in GameStores.All)
            {
                var directory = Paths.FreshDirectory(Paths.StoresRoot, $"game-{Guid.NewGuid():n}");
                GameRow row;
                using (var store = open(directory, players))
                {
                    Console.WriteLine($"// game mix, run {run} of {runs}: {store.Name}, {players.Length} players, {duration.TotalSeconds:N0} s");

                    // Untimed, the same mix first: a server measured in play has run its code before. Without it the
                    // first store of the process paid the JIT and the thread pool's growth in its first ticks, which
                    // were its whole p99 (1% of the updates is two ticks), so rows were compared cold against warm.
                    Measure(store, players, WarmUp(duration));
                    row = Measure(store, players, duration);
                }

                rows.Add(row with { Run = run, DiskKiB = Paths.SizeOnDisk(directory) / 1024 });
                Directory.Delete(directory, recursive: true);
                Console.WriteLine($"//   {rows[^1]}");
            }
        }

        Directory.CreateDirectory(resultsFolder);
        File.WriteAllText(Path.Combine(resultsFolder, "game-mix.csv"), GameRow.ToCsv(rows));
        File.WriteAllText(Path.Combine(resultsFolder, "game-mix.md"), GameSummary.ToMarkdown(GameSummary.Of(rows), players.Length, duration, runs));
    }

    /// <summary>The untimed warm-up before each store's run: 2 s, or the run's length when that is shorter.</summary>
    private static TimeSpan WarmUp(TimeSpan duration) => duration < TimeSpan.FromSeconds(2) ? duration : TimeSpan.FromSeconds(2);

    private static GameRow Measure(IGameStore store, SmallRecord[] players, TimeSpan duration)
    {
        var tick = TimeSpan.FromSeconds(1.0 / TickHz);
        var clock = new Stopwatch();
        var writes = new Schedule[Writers];
        var reads = new Schedule[Readers];
        var ownPlayers = Enumerable.Range(0, Writers).Select(w => players.Where(p => p.Id % Writers == w).ToArray()).ToArray();
        for (var w = 0; w < Writers; w++)
        {
            writes[w] = new Schedule();
        }

        for (var r = 0; r < Readers; r++)
        {
            reads[r] = new Schedule();
        }

        async Task WriterAsync(int w)
        {
            var random = new Random(w);
            var mine = ownPlayers[w];
            for (var k = 0; ; k++)
            {
                var intended = tick * k;
                if (!await StartAtAsync(store.IsAsync, clock, intended, duration).ConfigureAwait(false))
                {
                    writes[w].Missed(clock.Elapsed, tick, k, duration, mine.Length);
                    return;
                }

                var from = From(intended, clock);
                var updates = mine.Select(p => new SmallRecord { Id = p.Id, Name = p.Name, Score = random.Next(0, 1_000_000), LastSeen = DateTime.UtcNow }).ToArray();
                await store.WriteTickAsync(updates).ConfigureAwait(false);
                writes[w].Completed(clock.Elapsed - from, updates.Length);
            }
        }

        async Task ReaderAsync(int r)
        {
            var stagger = tick * r / Readers;
            for (var k = 0; ; k++)
            {
                var intended = stagger + (tick * k);
                if (!await StartAtAsync(store.IsAsync, clock, intended, duration).ConfigureAwait(false))
                {
                    reads[r].Missed(clock.Elapsed - stagger, tick, k, duration - stagger, 1);
                    return;
                }

                var from = From(intended, clock);
                if (store.Top(r, TopCount).Count != Math.Min(TopCount, players.Length))
                {
                    throw new InvalidOperationException($"{store.Name} returned a leaderboard of the wrong length.");
                }

                reads[r].Completed(clock.Elapsed - from, 1);
            }
        }

        var callers = store.IsAsync
            ? Callers.Tasks(Writers + Readers, i => i < Writers ? WriterAsync(i) : ReaderAsync(i - Writers))
            : Callers.Threads(Writers + Readers, i => (i < Writers ? WriterAsync(i) : ReaderAsync(i - Writers)).GetAwaiter().GetResult());
        clock.Start();
        callers.Run();
        var elapsed = clock.Elapsed.TotalSeconds;
        return GameRow.From(store.Name, store.Pairing, players.Length * TickHz, elapsed, writes, reads);
    }

    /// <summary>
    /// Where an operation's latency counts from: its intended start, so that a store that falls behind its schedule
    /// pays for the wait; or its actual start when the wait woke before the intended one (a sleep is whole
    /// milliseconds, so it wakes up to one early), so that no operation counts as faster than it took.
    /// </summary>
    private static TimeSpan From(TimeSpan intended, Stopwatch clock)
    {
        var started = clock.Elapsed;
        return started < intended ? started : intended;
    }

    /// <summary>Waits until <paramref name="intended"/>; false when the deadline has passed (nothing new starts after it).</summary>
    private static async ValueTask<bool> StartAtAsync(bool isAsync, Stopwatch clock, TimeSpan intended, TimeSpan deadline)
    {
        var now = clock.Elapsed;
        if (now >= deadline || intended >= deadline)
        {
            return false;
        }

        var wait = intended - now;
        if (wait > TimeSpan.Zero)
        {
            if (isAsync)
            {
                await Task.Delay(wait).ConfigureAwait(false);
            }
            else
            {
                Thread.Sleep(wait);
            }
        }

        return clock.Elapsed < deadline;
    }
}
