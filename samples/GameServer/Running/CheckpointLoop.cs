using System.Diagnostics;
using System.Globalization;
using Stellar.Store.Samples.GameServer.Persistence;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// <c>--checkpoint-every</c>: takes a checkpoint of the store every so often while the bots play, as a server's
/// autosave would. The tick never waits for it: the game keeps writing, and each collection's writer is held only while
/// its shards get their names in the checkpoint (<see cref="CheckpointInfo.WriterPause"/>).
/// </summary>
internal static class CheckpointLoop
{
    /// <summary>Takes checkpoints every <paramref name="every"/> until <paramref name="stop"/>; returns each with the time it took.</summary>
    public static async Task<IReadOnlyList<(CheckpointInfo Info, TimeSpan Took)>> RunAsync(StellarGameStore store, TimeSpan every, Guid runId, CancellationToken stop)
    {
        var taken = new List<(CheckpointInfo, TimeSpan)>();
        for (var n = 1; ; n++)
        {
            try
            {
                await Task.Delay(every, stop).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return taken;
            }

            var clock = Stopwatch.StartNew();
            var info = await store.CheckpointAsync(string.Create(CultureInfo.InvariantCulture, $"run-{runId.ToString("n")[..8]}-{n:d4}")).ConfigureAwait(false);
            taken.Add((info, clock.Elapsed));
        }
    }

    /// <summary>Prints what the checkpoints cost: writer pauses, bytes copied and shared, and the time each took off the tick.</summary>
    public static void Print(TextWriter output, TimeSpan every, IReadOnlyList<(CheckpointInfo Info, TimeSpan Took)> taken)
    {
        if (taken.Count == 0)
        {
            output.WriteLine($"checkpoints: none taken (the run was shorter than --checkpoint-every {every.TotalSeconds:N0} s)");
            return;
        }

        static double Median(IEnumerable<double> values) => values.Order().ElementAt(values.Count() / 2);
        var pauses = taken.Select(t => t.Info.WriterPause.TotalMicroseconds).ToList();
        var copied = taken.Select(t => t.Info.CopiedBytes / 1024.0).ToList();
        var took = taken.Select(t => t.Took.TotalMilliseconds).ToList();
        output.WriteLine($"checkpoints: {taken.Count} taken every {every.TotalSeconds:N0} s while the bots played; the tick never waits for one");
        output.WriteLine($"  writer held per checkpoint: median {Median(pauses):N0} µs, max {pauses.Max():N0} µs");
        output.WriteLine($"  bytes copied per checkpoint: median {Median(copied):N0} KiB, max {copied.Max():N0} KiB (the rest, {taken[^1].Info.SharedBytes / 1024.0 / 1024:N1} MiB in the last, shared by hard link)");
        output.WriteLine($"  time per checkpoint, off the tick: median {Median(took):N1} ms, max {took.Max():N1} ms; the newest {StellarGameStore.KeptCheckpoints} are kept");
    }
}
