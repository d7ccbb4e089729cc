using System.Globalization;
using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>units &lt;dir&gt; &lt;seed&gt; &lt;durability&gt; &lt;compression&gt; &lt;encrypted&gt;</c>: opens the store at <c>dir</c>,
/// prints <c>ready</c>, then runs <see cref="WriteVerb.Tasks"/> seeded <see cref="UnitStream"/>s concurrently, each step
/// one write across collections, and prints <c>ack &lt;task&gt; &lt;step&gt; .</c> after each step's task completed, until
/// it is killed.
/// </summary>
internal static class UnitsVerb
{
    private const int MaxStepsPerTask = 50_000;

    public static int Run(string[] args)
    {
        if (args.Length != 5
            || !int.TryParse(args[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed)
            || !Enum.TryParse<Durability>(args[2], out var durability)
            || !Enum.TryParse<Compression>(args[3], out var compression)
            || !bool.TryParse(args[4], out var encrypted))
        {
            Console.Error.WriteLine("usage: units <store directory> <seed> <Buffered|WriteThrough|Fsync> <None|Lz4> <true|false>");
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

        var collections = UnitStream.Collections.Select(n => store.GetCollection<int, WorkloadItem>(n, i => i.Id)).ToArray();
        Console.Out.WriteLine(WriteVerb.ReadyLine);
        Console.Out.Flush();
        var tasks = Enumerable.Range(0, WriteVerb.Tasks).Select(task => Task.Run(async () =>
        {
            var stream = new UnitStream(seed, task);
            for (var step = 0; step < MaxStepsPerTask; step++)
            {
                var writes = stream.Next();
                await store.WriteAsync(tx =>
                {
                    foreach (var (collection, key, item) in writes)
                    {
                        _ = item is null ? tx.In(collections[collection]).Delete(key) : tx.In(collections[collection]).Upsert(item);
                    }
                }).ConfigureAwait(false);

                // The trailing dot marks a whole line: a line cut by the kill is not an acknowledgement.
                Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture, $"ack {task} {step} ."));
                Console.Out.Flush();
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
}
