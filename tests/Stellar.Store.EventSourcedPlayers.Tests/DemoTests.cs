using Stellar.Store.Samples.EventSourcedPlayers;

namespace Stellar.Store.EventSourcedPlayers.Tests;

/// <summary>
/// The sample's story on a real store: after the restart, every player's state is the one its accepted commands
/// make, computed here by a model of the game's two rules, and recoveries start from snapshots.
/// </summary>
public sealed class DemoTests : IDisposable
{
    private const int SnapshotEvery = 7;
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "event-sourced-players-tests", Guid.NewGuid().ToString("n"));

    [Theory]
    [InlineData("write-through")]
    [InlineData("fsync")]
    public async Task Demo_AfterARestart_EveryPlayerRecoversTheStateItsAcceptedCommandsMake(string durability)
    {
        var result = await Demo.RunAsync(_directory, players: 6, commandsPerPlayer: 40, SnapshotEvery, durability, TextWriter.Null);

        Assert.Equal(6, result.AfterRestart.Count);
        foreach (var player in result.AfterRestart)
        {
            // Model: earning always succeeds; buying succeeds only with enough gold, and then adds the item.
            int gold = 0, earned = 0, spent = 0, events = 0;
            var items = new List<string>();
            foreach (var outcome in result.Commands.Where(c => $"player-{c.PlayerId}" == player.PersistenceId))
            {
                var accept = false;
                switch (outcome.Command)
                {
                    case EarnGold e:
                        (gold, earned, accept) = (gold + e.Amount, earned + e.Amount, true);
                        break;
                    case BuyItem b when b.Amount <= gold:
                        (gold, spent, accept) = (gold - b.Amount, spent + b.Amount, true);
                        items.Add(b.Item);
                        break;
                }

                Assert.True(accept ? outcome.Reply is Accepted : outcome.Reply is Rejected, $"{player.PersistenceId}: {outcome.Command} got {outcome.Reply}");
                events += accept ? 1 : 0;
            }

            Assert.Equal((gold, earned, spent, events), (player.State.Gold, player.State.Earned, player.State.Spent, (int)player.LastSequenceNr));
            Assert.Equal(items, player.State.Items);

            // Recovery is the latest snapshot plus the events after it.
            Assert.Equal(0, player.RecoveredFromSnapshotAt % SnapshotEvery);
            Assert.Equal(player.LastSequenceNr, player.RecoveredFromSnapshotAt + player.ReplayedEvents);
        }

        Assert.Contains(result.AfterRestart, p => p.RecoveredFromSnapshotAt > 0);
        Assert.True(result.Recovered);
    }

    public void Dispose()
    {
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }
}
