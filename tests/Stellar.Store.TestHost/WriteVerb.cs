using System.Globalization;
using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>write &lt;dir&gt; &lt;seed&gt; &lt;durability&gt; &lt;compression&gt; &lt;encrypted&gt;</c>: opens the store at <c>dir</c>,
/// prints <c>ready</c>, then runs <see cref="Tasks"/> seeded <see cref="WorkloadStream"/>s concurrently and prints
/// <c>ack &lt;task&gt; &lt;step&gt; .</c> after each step's task completed, until it is killed. The parent kills it at a
/// random moment and checks the reopened store against the streams and the acknowledgements it read.
/// </summary>
internal static class WriteVerb
{
    /// <summary>The line printed once the store is open.</summary>
    public const string ReadyLine = "ready";

    /// <summary>Concurrent tasks, each with its own keys.</summary>
    public const int Tasks = 4;

    /// <summary>Keys per task: few enough that updates and deletes hit written keys often.</summary>
    public const int KeysPerTask = 50;

    /// <summary>A bound, so that a child whose parent died stops on its own.</summary>
    private const int MaxStepsPerTask = 50_000;

    public static int Run(string[] args) => RunTasks("write", args, (store, seed) =>
    {
        var items = store.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
        return task =>
        {
            var stream = new WorkloadStream(seed, task, KeysPerTask);
            return () => WorkloadStream.ExecuteAsync(items, stream.Next());
        };
    });

    /// <summary>The optional last argument that also takes checkpoints while the tasks run (see <see cref="RunTasks"/>).</summary>
    public const string CheckpointsArgument = "checkpoints";

    /// <summary>
    /// The body of a verb that takes <c>&lt;dir&gt; &lt;seed&gt; &lt;durability&gt; &lt;compression&gt; &lt;encrypted&gt; [checkpoints]</c>:
    /// opens the store, lets <paramref name="prepare"/> open its collections, prints <see cref="ReadyLine"/>, then runs
    /// <see cref="Tasks"/> tasks, each taking the steps its step function makes (from <paramref name="prepare"/>'s
    /// factory, by task) and printing <c>ack &lt;task&gt; &lt;step&gt; .</c> after each, until it is killed. With
    /// <c>checkpoints</c>, one more task takes checkpoint <c>k&lt;n&gt;</c> after checkpoint, printing
    /// <c>checkpoint-start &lt;n&gt;</c> before the call and <c>checkpoint &lt;n&gt; .</c> after it completed.
    /// </summary>
    internal static int RunTasks(string verb, string[] args, Func<StellarStore, int, Func<int, Func<Task>>> prepare)
    {
        if (args.Length is not (5 or 6)
            || !int.TryParse(args[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed)
            || !Enum.TryParse<Durability>(args[2], out var durability)
            || !Enum.TryParse<Compression>(args[3], out var compression)
            || !bool.TryParse(args[4], out var encrypted)
            || (args.Length == 6 && args[5] != CheckpointsArgument))
        {
            Console.Error.WriteLine($"usage: {verb} <store directory> <seed> <Buffered|WriteThrough|Fsync> <None|Lz4> <true|false> [{CheckpointsArgument}]");
            return ExitCodes.Usage;
        }

        return RunTasksAsync(args[0], seed, WorkloadOptions.Create(durability, compression, encrypted), prepare, checkpoints: args.Length == 6).GetAwaiter().GetResult();
    }

    private static async Task<int> RunTasksAsync(string directory, int seed, StoreOptions options, Func<StellarStore, int, Func<int, Func<Task>>> prepare, bool checkpoints)
    {
        StellarStore store;
        try
        {
            store = await StellarStore.OpenAsync(directory, options).ConfigureAwait(false);
        }
        catch (StoreLockedException ex)
        {
            Console.Error.WriteLine(ex.Message);
            return ExitCodes.StoreLocked;
        }

        var steps = prepare(store, seed);
        Print(ReadyLine);
        var tasks = Enumerable.Range(0, Tasks).Select(task => Task.Run(async () =>
        {
            var next = steps(task);
            for (var step = 0; step < MaxStepsPerTask; step++)
            {
                await next().ConfigureAwait(false);

                // The trailing dot marks a whole line: a line cut by the kill is not an acknowledgement.
                Print(string.Create(CultureInfo.InvariantCulture, $"ack {task} {step} ."));
            }
        })).ToArray();

        using var stop = new CancellationTokenSource();
        var checkpointing = checkpoints ? Task.Run(() => CheckpointUntilAsync(store, stop.Token)) : Task.CompletedTask;
        try
        {
            await Task.WhenAll(tasks).ConfigureAwait(false);
            await stop.CancelAsync().ConfigureAwait(false);
            await checkpointing.ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Console.Error.WriteLine(ex);
            return ExitCodes.WorkloadFailed;
        }

        await store.DisposeAsync().ConfigureAwait(false);
        return ExitCodes.Success;
    }

    private static async Task CheckpointUntilAsync(StellarStore store, CancellationToken stop)
    {
        for (var n = 0; !stop.IsCancellationRequested; n++)
        {
            Print(string.Create(CultureInfo.InvariantCulture, $"checkpoint-start {n}"));
            await store.CheckpointAsync(string.Create(CultureInfo.InvariantCulture, $"k{n}"), CancellationToken.None).ConfigureAwait(false);
            Print(string.Create(CultureInfo.InvariantCulture, $"checkpoint {n} ."));
        }
    }

    private static void Print(string line)
    {
        // Console.Out is synchronized, so lines from several tasks never interleave.
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
