using System.Text;
using Stellar.Store.TestHost.Workload;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// The model check after a crash: each task's keys must hold exactly the state after one of its steps, from the
/// last one the mode promised to keep to the last one it attempted (whole: a batch is never half there), and no key
/// outside every task's range may exist.
/// </summary>
internal static class WorkloadCheck
{
    /// <summary>
    /// Checks <paramref name="actual"/> (every item of the reopened store) against the streams of
    /// <paramref name="seed"/> after a kill: <paramref name="lastAcknowledged"/>[t] is task t's last acknowledged step
    /// (-1: none), and the step after it may or may not be there. Throws naming <paramref name="context"/> (the seed
    /// and mode) on any difference; returns how many tasks had that unacknowledged step applied.
    /// </summary>
    public static int Verify(IReadOnlyDictionary<int, WorkloadItem> actual, int seed, int keysPerTask, IReadOnlyList<int> lastAcknowledged, string context) =>
        Verify(actual, seed, keysPerTask, lastAcknowledged, lastAcknowledged.Select(step => step + 1).ToArray(), context);

    /// <summary>
    /// Checks that each task t holds exactly the state after one of its steps <paramref name="guaranteed"/>[t] to
    /// <paramref name="attempted"/>[t] (-1: before the first), so that everything up to the guaranteed step is
    /// there, nothing after the attempted one, and no step (a batch included) is there in part. Returns how many
    /// tasks were found past their guaranteed step.
    /// </summary>
    public static int Verify(IReadOnlyDictionary<int, WorkloadItem> actual, int seed, int keysPerTask, IReadOnlyList<int> guaranteed, IReadOnlyList<int> attempted, string context)
    {
        var streams = new List<WorkloadStream>();
        var beyond = 0;
        for (var task = 0; task < guaranteed.Count; task++)
        {
            var stream = new WorkloadStream(seed, task, keysPerTask);
            streams.Add(stream);
            for (var step = 0; step <= guaranteed[task]; step++)
            {
                stream.Next();
            }

            var mine = actual.Where(entry => stream.Owns(entry.Key)).ToDictionary(entry => entry.Key, entry => entry.Value);
            var atGuaranteed = new Dictionary<int, WorkloadItem>(stream.State);
            var found = Same(mine, atGuaranteed);
            for (var step = guaranteed[task] + 1; !found && step <= attempted[task]; step++)
            {
                stream.Next();
                found = Same(mine, stream.State);
                beyond += found ? 1 : 0;
            }

            if (!found)
            {
                throw new XunitException(
                    $"{context}: task {task} holds the state after none of its steps {guaranteed[task]} (the last it was promised) to " +
                    $"{attempted[task]} (the last it attempted).{Environment.NewLine}" +
                    $"Against step {guaranteed[task]}: {Differences(mine, atGuaranteed)}{Environment.NewLine}" +
                    $"Against step {attempted[task]}: {Differences(mine, stream.State)}");
            }
        }

        var foreign = actual.Keys.Where(key => !streams.Any(s => s.Owns(key))).Take(5).ToArray();
        if (foreign.Length > 0)
        {
            throw new XunitException($"{context}: keys that no task ever wrote are there: {string.Join(", ", foreign)}");
        }

        return beyond;
    }

    private static bool Same(Dictionary<int, WorkloadItem> actual, IReadOnlyDictionary<int, WorkloadItem> expected) =>
        actual.Count == expected.Count && expected.All(entry => actual.TryGetValue(entry.Key, out var value) && value == entry.Value);

    private static string Differences(Dictionary<int, WorkloadItem> actual, IReadOnlyDictionary<int, WorkloadItem> expected)
    {
        var text = new StringBuilder();
        var missing = expected.Keys.Where(k => !actual.ContainsKey(k)).Order().Take(5).ToArray();
        var extra = actual.Keys.Where(k => !expected.ContainsKey(k)).Order().Take(5).ToArray();
        var changed = expected.Where(e => actual.TryGetValue(e.Key, out var v) && v != e.Value)
            .Select(e => $"{e.Key} (step {actual[e.Key].Step}, expected step {e.Value.Step})").Take(5).ToArray();
        text.Append(System.Globalization.CultureInfo.InvariantCulture, $"missing [{string.Join(", ", missing)}], extra [{string.Join(", ", extra)}], different [{string.Join(", ", changed)}]");
        return text.ToString();
    }
}
