using System.Text;
using Stellar.Store.TestHost.Workload;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// The model check after a crash: each task's keys must hold exactly the state after its last acknowledged step,
/// or after the one step it may have started since (whole: a batch is never half there), and no key outside every
/// task's range may exist.
/// </summary>
internal static class WorkloadCheck
{
    /// <summary>
    /// Checks <paramref name="actual"/> (every item of the reopened store) against the streams of
    /// <paramref name="seed"/>; <paramref name="lastAcknowledged"/>[t] is task t's last acknowledged step (-1: none).
    /// Throws naming <paramref name="context"/> (the seed and mode) on any difference. Returns how many tasks had
    /// their started-but-unacknowledged step applied.
    /// </summary>
    public static int Verify(IReadOnlyDictionary<int, WorkloadItem> actual, int seed, int keysPerTask, IReadOnlyList<int> lastAcknowledged, string context)
    {
        var streams = new List<WorkloadStream>();
        var pendingApplied = 0;
        for (var task = 0; task < lastAcknowledged.Count; task++)
        {
            var stream = new WorkloadStream(seed, task, keysPerTask);
            streams.Add(stream);
            for (var step = 0; step <= lastAcknowledged[task]; step++)
            {
                stream.Next();
            }

            var acknowledged = new Dictionary<int, WorkloadItem>(stream.State);
            var pending = stream.Next();
            var mine = actual.Where(entry => stream.Owns(entry.Key)).ToDictionary(entry => entry.Key, entry => entry.Value);
            if (Same(mine, acknowledged))
            {
                continue;
            }

            pendingApplied++;
            if (!Same(mine, stream.State))
            {
                throw new XunitException(
                    $"{context}: task {task} holds neither the state after its last acknowledged step {lastAcknowledged[task]} " +
                    $"nor the state after step {pending.Step} ({(pending.Atomic ? $"a batch of {pending.Writes.Count}" : pending.Writes[0].Kind.ToString())}).{Environment.NewLine}" +
                    $"Against the acknowledged state: {Differences(mine, acknowledged)}{Environment.NewLine}" +
                    $"Against the state with the pending step: {Differences(mine, stream.State)}");
            }
        }

        var foreign = actual.Keys.Where(key => !streams.Any(s => s.Owns(key))).Take(5).ToArray();
        if (foreign.Length > 0)
        {
            throw new XunitException($"{context}: keys that no task ever wrote are there: {string.Join(", ", foreign)}");
        }

        return pendingApplied;
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
