using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Unique indexes under writes that share commit groups: many writes queued at once, in an order the test knows, each
/// checked against the test's own model of which names are held, as the writer checks it against the writes staged
/// before it; then the index against the records, and again after a reopen.
/// </summary>
public sealed class UniqueIndexGroupTests : IDisposable
{
    private static readonly string?[] Names = ["ann", "bob", "cat", "dan", null];
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task WritesQueuedTogether_ThatClaimFreeAndMoveUniqueKeys_HaveTheOutcomesOfTheModel(int seed)
    {
        var random = new Random(seed);
        var definition = new IndexDefinition<string?, Player>("by-name", p => p.Name, unique: true);
        var model = new Dictionary<int, Player>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, definition);
            var byName = players.Index(definition);
            for (var round = 0; round < 40; round++)
            {
                var writes = new List<(Task Task, Type? Expected)>();
                for (var i = 0; i < 12; i++)
                {
                    var batch = Enumerable.Range(0, random.Next(1, 4)).Select(_ => RandomWrite(random)).ToList();
                    var expected = Apply(model, batch);
                    var task = batch.Count == 1 && random.Next(2) == 0
                        ? Single(players, batch[0])
                        : players.WriteAsync(b =>
                        {
                            foreach (var (kind, player) in batch)
                            {
                                _ = kind switch
                                {
                                    'i' => b.Insert(player),
                                    'u' => b.Update(player),
                                    's' => b.Upsert(player),
                                    _ => b.Delete(player.Id),
                                };
                            }
                        });
                    writes.Add((task, expected));
                }

                foreach (var (task, expected) in writes)
                {
                    var thrown = await Record.ExceptionAsync(() => task);
                    Assert.Equal(expected, thrown?.GetType());
                }

                AssertAgrees(model, players, byName);
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id, definition);
            var byName = players.Index(definition);
            await byName.Ready;
            AssertAgrees(model, players, byName);
        }
    }

    /// <summary>
    /// A drop is queued behind the writes before it: those are still checked against the index, as it stands after the
    /// writes before them, so a write that takes a name an earlier write gave up is accepted.
    /// </summary>
    [Fact]
    public async Task WritesQueuedBeforeADrop_AreCheckedAgainstTheIndexAsTheWritesBeforeThemLeftIt()
    {
        var storage = new Units.GatedStorage(_dir.Path);
        await using var store = await StellarStore.OpenAsync(storage, new StoreOptions());
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var byName = players.Index("by-name", p => p.Name, unique: true);
        await byName.Ready;
        await players.InsertAsync(new Player(1, "ann", 1, 0));

        // The write that gives up "ann" is in flight, stalled in its append, when the drop is asked for.
        storage.Shut();
        var givesUp = players.UpdateAsync(new Player(1, "bob", 1, 0));
        while (storage.Stalled == 0)
        {
            await Task.Delay(1);
        }

        var takes = players.InsertAsync(new Player(2, "ann", 1, 0));
        var clashes = players.InsertAsync(new Player(3, "bob", 1, 0));
        var drop = players.DropIndexAsync(byName);
        storage.Open();

        await givesUp;
        await takes;
        await Assert.ThrowsAsync<UniqueConstraintException>(() => clashes);
        await drop;
        Assert.Equal(new[] { (1, "bob"), (2, "ann") }, players.Query().OrderBy(p => p.Id).Select(p => (p.Id, p.Name)));
    }

    private static Task Single(Collection<int, Player> players, (char Kind, Player Player) write) => write.Kind switch
    {
        'i' => players.InsertAsync(write.Player),
        'u' => players.UpdateAsync(write.Player),
        's' => players.UpsertAsync(write.Player),
        _ => players.DeleteAsync(write.Player.Id),
    };

    private static (char Kind, Player Player) RandomWrite(Random random) =>
        ("iusdd"[random.Next(5)], new Player(random.Next(6), Names[random.Next(Names.Length)]!, random.Next(100), 0));

    /// <summary>The model's outcome of an atomic batch: every write checked against the state the earlier ones leave.</summary>
    private static Type? Apply(Dictionary<int, Player> model, List<(char Kind, Player Player)> batch)
    {
        var next = new Dictionary<int, Player>(model);
        foreach (var (kind, player) in batch)
        {
            var exists = next.ContainsKey(player.Id);
            if (kind == 'i' && exists)
            {
                return typeof(DuplicateKeyException);
            }

            if (kind == 'u' && !exists)
            {
                return typeof(KeyNotFoundException);
            }

            if (kind == 'd')
            {
                next.Remove(player.Id);
                continue;
            }

            if (player.Name is not null && next.Values.Any(p => p.Id != player.Id && p.Name == player.Name))
            {
                return typeof(UniqueConstraintException);
            }

            next[player.Id] = player;
        }

        model.Clear();
        foreach (var (id, player) in next)
        {
            model[id] = player;
        }

        return null;
    }

    private static void AssertAgrees(Dictionary<int, Player> model, Collection<int, Player> players, CollectionIndex<string?, int, Player> byName)
    {
        var expected = model.Values.OrderBy(p => p.Name, StringComparer.Ordinal).ThenBy(p => p.Id).ToList();
        Assert.Equal(expected, byName.All().ToList());
        Assert.Equal(model.Values.OrderBy(p => p.Id), players.Query().OrderBy(p => p.Id));
    }
}
