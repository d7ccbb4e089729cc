using System.Globalization;
using Akka.Actor;

namespace Stellar.Store.Samples.EventSourcedPlayers;

/// <summary>
/// The sample's story: players earn gold and buy items (some purchases are rejected: not enough gold), each player
/// an event-sourced actor; then the server restarts (the actor system is terminated and a new one opens the same
/// store), every player recovers from its latest snapshot plus the events after it, and its state is compared with
/// the state it had before the restart.
/// </summary>
public static class Demo
{
    private static readonly string[] Items = ["sword", "shield", "potion", "bow", "helmet"];

    /// <summary>Runs the story in <paramref name="directory"/>, printing what happens to <paramref name="output"/>.</summary>
    public static async Task<DemoResult> RunAsync(string directory, int players, int commandsPerPlayer, int snapshotEvery, string durability, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var ids = Enumerable.Range(1, players).Select(i => i.ToString(CultureInfo.InvariantCulture)).ToList();
        List<CommandOutcome> commands;
        List<PlayerView> before;
        await using (var world = await PlayerWorld.StartAsync(directory, durability, snapshotEvery).ConfigureAwait(false))
        {
            // Players play at once; each one's commands go one after another, as a client's would.
            var played = await Task.WhenAll(ids.Select(id => PlayAsync(world.Player(id), id, commandsPerPlayer))).ConfigureAwait(false);
            commands = played.SelectMany(p => p).ToList();
            before = await ViewAllAsync(world, ids).ConfigureAwait(false);
            var rejected = commands.Count(c => c.Reply is Rejected);
            output.WriteLine($"{players} players sent {commands.Count} commands: {commands.Count - rejected} persisted as events, {rejected} rejected (not enough gold).");
            output.WriteLine($"Each player snapshots its state every {snapshotEvery} events. Restarting the server...");
        }

        await using var restarted = await PlayerWorld.StartAsync(directory, durability, snapshotEvery).ConfigureAwait(false);
        var after = await ViewAllAsync(restarted, ids).ConfigureAwait(false);
        foreach (var (was, now) in before.Zip(after).Take(5))
        {
            var items = now.State.Items.Count == 1 ? "1 item" : $"{now.State.Items.Count} items";
            var recovery = now.RecoveredFromSnapshotAt == 0
                ? $"recovered from its {now.ReplayedEvents} events (no snapshot yet)"
                : $"recovered from the snapshot at event {now.RecoveredFromSnapshotAt} and {now.ReplayedEvents} events after it";
            output.WriteLine($"  {now.PersistenceId}: {now.State.Gold} gold, {items}, {now.LastSequenceNr} events; {recovery}; {(was.State.SameAs(now.State) ? "same state as before the restart" : "DIFFERENT from before the restart")}");
        }

        var result = new DemoResult(commands, before, after);
        output.WriteLine(result.Recovered
            ? $"All {players} players recovered the state they had before the restart."
            : "Some players did not recover the state they had before the restart.");
        return result;
    }

    private static async Task<List<CommandOutcome>> PlayAsync(IActorRef player, string id, int commands)
    {
        var random = new Random(int.Parse(id, CultureInfo.InvariantCulture));
        var outcomes = new List<CommandOutcome>(commands);
        for (var n = 0; n < commands; n++)
        {
#pragma warning disable CA5394 // a game's dice, not a secret
            object command = random.Next(10) < 7
                ? new EarnGold(random.Next(1, 51))
                : new BuyItem(Items[random.Next(Items.Length)], random.Next(10, 121));
#pragma warning restore CA5394
            outcomes.Add(new CommandOutcome(id, command, await player.Ask<object>(command, TimeSpan.FromSeconds(30)).ConfigureAwait(false)));
        }

        return outcomes;
    }

    private static async Task<List<PlayerView>> ViewAllAsync(PlayerWorld world, IEnumerable<string> ids) =>
        [.. await Task.WhenAll(ids.Select(id => world.Player(id).Ask<PlayerView>(new GetPlayer(), TimeSpan.FromSeconds(30)))).ConfigureAwait(false)];
}
