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

    public static int Run(string[] args)
    {
        if (args.Length != 5
            || !int.TryParse(args[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed)
            || !Enum.TryParse<Durability>(args[2], out var durability)
            || !Enum.TryParse<Compression>(args[3], out var compression)
            || !bool.TryParse(args[4], out var encrypted))
        {
            Console.Error.WriteLine("usage: write <store directory> <seed> <Buffered|WriteThrough|Fsync> <None|Lz4> <true|false>");
            return ExitCodes.Usage;
        }

        return RunAsync(args[0], seed, WorkloadOptions.Create(durability, compression, encrypted)).GetAwaiter().GetResult();
    }

    private static async Task<int> RunAsync(string directory, int seed, StoreOptions options)
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

        var items = store.GetCollection<int, WorkloadItem>(WorkloadStream.CollectionName, i => i.Id);
        Print(ReadyLine);
        var tasks = Enumerable.Range(0, Tasks).Select(task => Task.Run(async () =>
        {
            var stream = new WorkloadStream(seed, task, KeysPerTask);
            for (var step = 0; step < MaxStepsPerTask; step++)
            {
                await WorkloadStream.ExecuteAsync(items, stream.Next()).ConfigureAwait(false);

                // The trailing dot marks a whole line: a line cut by the kill is not an acknowledgement.
                Print(string.Create(CultureInfo.InvariantCulture, $"ack {task} {step} ."));
            }
        })).ToArray();

        try
        {
            await Task.WhenAll(tasks).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Console.Error.WriteLine(ex);
            return ExitCodes.WorkloadFailed;
        }

        await store.DisposeAsync().ConfigureAwait(false);
        return ExitCodes.Success;
    }

    private static void Print(string line)
    {
        // Console.Out is synchronized, so lines from several tasks never interleave.
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
