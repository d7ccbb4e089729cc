using System.Globalization;
using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>feed-hold &lt;dir&gt;</c>: opens a new store at <c>dir</c>, makes the <see cref="HeldFeed.Cursor"/> cursor hold
/// compaction, prints <c>ready</c>, then writes <see cref="HeldFeed"/> steps one by one and prints <c>ack &lt;step&gt; .</c>
/// after each completed. Every 40 steps the cursor's consumer reads up to 150 steps behind the writes and acknowledges,
/// printing <c>cursor &lt;step&gt; .</c> once the acknowledgement of that step completed; every 90 steps the collection
/// compacts, so compactions run while the cursor lags. Runs until it is killed.
/// </summary>
internal static class FeedHoldVerb
{
    /// <summary>A bound, so that a child whose parent died stops on its own.</summary>
    private const int MaxSteps = 200_000;

    public static int Run(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: feed-hold <new store directory>");
            return ExitCodes.Usage;
        }

        try
        {
            RunAsync(args[0]).GetAwaiter().GetResult();
            return ExitCodes.Success;
        }
        catch (StoreLockedException ex)
        {
            Console.Error.WriteLine(ex.Message);
            return ExitCodes.StoreLocked;
        }
        catch (Exception ex)
        {
            Console.Error.WriteLine(ex);
            return ExitCodes.WorkloadFailed;
        }
    }

    private static async Task RunAsync(string path)
    {
        await using var store = await StellarStore.OpenAsync(path, HeldFeed.Options());
        var items = store.GetCollection<int, WorkloadItem>(HeldFeed.CollectionName, i => i.Id);
        var cursor = items.Feed(HeldFeed.Cursor);
        await cursor.HoldCompactionAsync(HeldFeed.MaxHeldBytes);
        Print("ready");
        for (var step = 0; step < MaxSteps; step++)
        {
            await items.UpsertAsync(HeldFeed.Item(step));
            Print(string.Create(CultureInfo.InvariantCulture, $"ack {step} ."));
            if (step % 40 == 39 && step >= 150)
            {
                await ConsumeUpToAsync(cursor, step - 150);
            }

            if (step % 90 == 89)
            {
                await items.CompactAsync();
            }
        }
    }

    /// <summary>Reads the cursor's changes up to step <paramref name="last"/> and acknowledges that one.</summary>
    private static async Task ConsumeUpToAsync(ChangeFeedCursor<int, WorkloadItem> cursor, int last)
    {
        using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        await foreach (var change in cursor.Changes(guard.Token))
        {
            if (change.Value!.Step > last)
            {
                break;
            }

            if (change.Value.Step == last)
            {
                await cursor.AcknowledgeAsync(change.Position);
                Print(string.Create(CultureInfo.InvariantCulture, $"cursor {last} ."));
                break;
            }
        }
    }

    private static void Print(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
