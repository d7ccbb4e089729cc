using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Reliability;

namespace Stellar.Store.Tests.Expiry;

/// <summary>
/// Records that expire, checked after every step against a model kept by the test (each key's value and expiry time,
/// and whether it is still stored), under single writes with and without an expiry, atomic and cross-collection batches,
/// a clock moved on by hand, removals of expired records (asked for, and made by each write), compactions, reopens,
/// machine crashes (every acknowledged write is durable under Fsync), and snapshots held while the clock moves.
/// </summary>
public sealed class ExpiryModelTests : IDisposable
{
    private readonly MemoryStorage _memory = new();
    private readonly Random _random = new(231125);
    private readonly TestClock _clock = new();
    private readonly StoreOptions _options;

    public ExpiryModelTests()
    {
        // No background removal: the test decides when expired records are removed, so the model knows what is stored.
        _options = new StoreOptions
        {
            Clock = _clock,
            ExpirySweepInterval = Timeout.InfiniteTimeSpan,
            Durability = Durability.Fsync,
            LargeValueThreshold = 1024,
            MaxShardBytes = 64 * 1024,
        };
    }

    public void Dispose() => _fence?.Dispose();

    private CrashFence? _fence;

    /// <summary>
    /// Expired records whose deletes a rejected write staged: a group of only rejected writes commits nothing, so they
    /// stay stored until the writer's next group commits (an accepted write's, or a step the store queues on its own
    /// when a snapshot is released).
    /// </summary>
    private readonly Dictionary<int, (Player Player, long ExpiresAt)> _pending = new();

    /// <summary>Expired records a reopen may or may not have found stored (their deletes were pending at the close).</summary>
    private readonly HashSet<int> _uncertain = new();

    [Fact]
    public async Task Expiry_UnderWritesBatchesRemovalsCompactionsReopensAndCrashes_AgreesWithTheModelAtEveryStep()
    {
        // Stored records: value and expiry time in ticks (0: never). Readers see those not expired by the clock.
        var model = new Dictionary<int, (Player Player, long ExpiresAt)>();
        var held = new List<(CollectionSnapshot<int, Player> Snapshot, Player[] Visible, long Count)>();
        var store = await Open();
        try
        {
            var (players, ledger, byGold) = await Declare(store);
            for (var step = 0; step < 700; step++)
            {
                var roll = _random.Next(100);
                var purged = new Dictionary<int, (Player Player, long ExpiresAt)>();
                if (roll < 65)
                {
                    // Every write to the collection, rejected or not, starts by removing the records expired by now.
                    purged = RemoveExpired(model);
                }

                var accepted = true;

                if (roll < 30)
                {
                    var player = NewPlayer();
                    var ttl = Ttl();
                    if (ttl is { } after)
                    {
                        await players.UpsertAsync(player, after);
                    }
                    else
                    {
                        await players.UpsertAsync(player);
                    }

                    model[player.Id] = (player, ExpiresAt(ttl));
                }
                else if (roll < 38)
                {
                    var player = NewPlayer();
                    var ttl = Ttl() ?? TimeSpan.FromSeconds(30);
                    if (Visible(model, player.Id))
                    {
                        await Assert.ThrowsAsync<DuplicateKeyException>(() => players.InsertAsync(player, ttl));
                        accepted = false;
                    }
                    else
                    {
                        await players.InsertAsync(player, ttl);
                        model[player.Id] = (player, ExpiresAt(ttl));
                    }
                }
                else if (roll < 44)
                {
                    var player = NewPlayer();
                    if (Visible(model, player.Id))
                    {
                        await players.UpdateAsync(player);
                        model[player.Id] = (player, 0);
                    }
                    else
                    {
                        await Assert.ThrowsAsync<KeyNotFoundException>(() => players.UpdateAsync(player));
                        accepted = false;
                    }
                }
                else if (roll < 52)
                {
                    var id = _random.Next(40);
                    Assert.Equal(Visible(model, id), await players.DeleteAsync(id));
                    model.Remove(id);
                }
                else if (roll < 60)
                {
                    accepted = await Batch(players, model);
                }
                else if (roll < 65)
                {
                    var player = NewPlayer();
                    var ttl = TimeSpan.FromSeconds(_random.Next(1, 40));
                    await store.WriteAsync(tx =>
                    {
                        tx.In(players).Upsert(player, ttl);
                        tx.In(ledger).Upsert(new Account(step, player.Gold));
                    });
                    model[player.Id] = (player, ExpiresAt(ttl));
                }
                else if (roll < 80)
                {
                    _clock.Advance(TimeSpan.FromSeconds(_random.Next(1, 15)));
                }
                else if (roll < 86)
                {
                    var expired = RemoveExpired(model);
                    Assert.InRange(await players.RemoveExpiredAsync(), expired.Keys.Count(id => !_uncertain.Contains(id)), expired.Count);
                    _uncertain.Clear();
                }
                else if (roll < 91)
                {
                    held.Add((players.Snapshot(), VisibleRecords(model), VisibleRecords(model).Length));
                    if (held.Count > 3)
                    {
                        held[0].Snapshot.Dispose();
                        held.RemoveAt(0);
                    }
                }
                else if (roll < 96)
                {
                    await players.CompactAsync();
                }
                else
                {
                    foreach (var (snapshot, _, _) in held)
                    {
                        snapshot.Dispose();
                    }

                    held.Clear();
                    if (_random.Next(2) == 0)
                    {
                        await store.DisposeAsync();
                    }
                    else
                    {
                        Assert.Null(await Crash.AndAbandonAsync(_fence!, _memory, store, losesUnsyncedData: true));
                    }

                    // Deletes staged and not committed by then are gone with the process: those records are stored again.
                    foreach (var (id, record) in _pending)
                    {
                        model[id] = record;
                        _uncertain.Add(id);
                    }

                    _pending.Clear();
                    store = await Open();
                    (players, ledger, byGold) = await Declare(store);
                }

                if (roll < 65 && !accepted)
                {
                    foreach (var (id, record) in purged)
                    {
                        _pending[id] = record;
                    }
                }
                else if (roll < 65 || (roll >= 80 && roll < 86) || (roll >= 91 && roll < 96))
                {
                    // An accepted write, a removal or a compaction commits its group, and the deletes staged before it.
                    _pending.Clear();
                }

                CheckLatest(players, byGold, model);
                foreach (var (snapshot, visible, count) in held)
                {
                    CheckSnapshot(snapshot, byGold, visible, count);
                }
            }
        }
        finally
        {
            foreach (var (snapshot, _, _) in held)
            {
                snapshot.Dispose();
            }

            await store.DisposeAsync();
        }
    }

    /// <summary>The collections and the index, declared on the loaded collection or, every other time, with its load.</summary>
    private async Task<(Collection<int, Player>, Collection<int, Account>, CollectionIndex<long, int, Player>)> Declare(StellarStore store)
    {
        var definition = new IndexDefinition<long, Player>("by-gold", p => p.Gold);
        var players = _random.Next(2) == 0
            ? store.GetCollection<int, Player>("players", p => p.Id)
            : store.GetCollection<int, Player>("players", p => p.Id, definition);
        var ledger = store.GetCollection<int, Account>("ledger", a => a.Id);
        var byGold = players.Index(definition);
        await byGold.Ready;
        return (players, ledger, byGold);
    }

    /// <summary>Opens the store over a fresh fence, so that a crash stops whatever the abandoned store still runs.</summary>
    private Task<StellarStore> Open()
    {
        _fence?.Dispose();
        _fence = new CrashFence(_memory);
        return StellarStore.OpenAsync(_fence, _options);
    }

    /// <summary>Writes a random atomic batch; returns whether it was accepted.</summary>
    private async Task<bool> Batch(Collection<int, Player> players, Dictionary<int, (Player Player, long ExpiresAt)> model)
    {
        var writes = Enumerable.Range(0, _random.Next(2, 6)).Select(_ => (Kind: _random.Next(3), Player: NewPlayer(), Ttl: Ttl())).ToList();
        var next = new Dictionary<int, (Player Player, long ExpiresAt)?>();
        var rejected = false;
        foreach (var (kind, player, ttl) in writes)
        {
            var exists = next.TryGetValue(player.Id, out var staged) ? staged is not null : Visible(model, player.Id);
            rejected |= kind == 0 && exists;
            next[player.Id] = kind == 2 ? null : (player, ExpiresAt(ttl));
        }

        var write = players.WriteAsync(batch =>
        {
            foreach (var (kind, player, ttl) in writes)
            {
                switch (kind, ttl)
                {
                    case (0, { } after): batch.Insert(player, after); break;
                    case (0, null): batch.Insert(player); break;
                    case (1, { } after): batch.Upsert(player, after); break;
                    case (1, null): batch.Upsert(player); break;
                    default: batch.Delete(player.Id); break;
                }
            }
        });
        if (rejected)
        {
            await Assert.ThrowsAsync<DuplicateKeyException>(() => write);
            return false;
        }

        await write;
        foreach (var (id, record) in next)
        {
            if (record is { } stored)
            {
                model[id] = stored;
            }
            else
            {
                model.Remove(id);
            }
        }

        return true;
    }

    private void CheckLatest(Collection<int, Player> players, CollectionIndex<long, int, Player> byGold, Dictionary<int, (Player Player, long ExpiresAt)> model)
    {
        var visible = VisibleRecords(model);
        for (var id = 0; id < 40; id++)
        {
            Assert.Equal(Visible(model, id) ? model[id].Player : null, players.Get(id));
            var expected = Visible(model, id) && model[id].ExpiresAt != 0 ? new DateTimeOffset(model[id].ExpiresAt, TimeSpan.Zero) : (DateTimeOffset?)null;
            Assert.Equal(expected, players.ExpiresAt(id));
        }

        Assert.Equal(visible.Length, players.Count);
        Assert.Equal(visible, players.Query().OrderBy(p => p.Id).ToArray());
        var byGoldModel = visible.OrderBy(p => p.Gold).ThenBy(p => p.Id).ToList();
        Assert.Equal(byGoldModel, byGold.All().ToList());
        Assert.Equal(byGoldModel.AsEnumerable().Reverse().Take(5).ToList(), byGold.Top(5).ToList());
        var lo = _random.Next(0, 12);
        Assert.Equal(byGoldModel.Where(p => p.Gold >= lo && p.Gold <= lo + 3).ToList(), byGold.Range(lo, lo + 3).ToList());
    }

    /// <summary>A snapshot reads at the time it was taken: what had not expired then stays, however far the clock moved since.</summary>
    private static void CheckSnapshot(CollectionSnapshot<int, Player> snapshot, CollectionIndex<long, int, Player> byGold, Player[] visible, long count)
    {
        Assert.Equal(count, snapshot.Count);
        Assert.Equal(visible, snapshot.Query().OrderBy(p => p.Id).ToArray());
        foreach (var player in visible)
        {
            Assert.Equal(player, snapshot.Get(player.Id));
        }

        Assert.Equal(visible.OrderBy(p => p.Gold).ThenBy(p => p.Id).ToList(), snapshot.Index(byGold).All().ToList());
    }

    /// <summary>Removes the expired records from the model; returns them.</summary>
    private Dictionary<int, (Player Player, long ExpiresAt)> RemoveExpired(Dictionary<int, (Player Player, long ExpiresAt)> model)
    {
        var expired = model.Where(r => !Visible(model, r.Key)).ToDictionary(r => r.Key, r => r.Value);
        foreach (var id in expired.Keys)
        {
            model.Remove(id);
        }

        return expired;
    }

    private bool Visible(Dictionary<int, (Player Player, long ExpiresAt)> model, int id) =>
        model.TryGetValue(id, out var record) && (record.ExpiresAt == 0 || _clock.GetUtcNow().UtcTicks < record.ExpiresAt);

    private Player[] VisibleRecords(Dictionary<int, (Player Player, long ExpiresAt)> model) =>
        model.Where(r => Visible(model, r.Key)).Select(r => r.Value.Player).OrderBy(p => p.Id).ToArray();

    private long ExpiresAt(TimeSpan? ttl) => ttl is { } after ? _clock.GetUtcNow().UtcTicks + after.Ticks : 0;

    /// <summary>Half the writes expire, between 1 and 40 seconds from now.</summary>
    private TimeSpan? Ttl() => _random.Next(2) == 0 ? TimeSpan.FromSeconds(_random.Next(1, 40)) : null;

    private Player NewPlayer()
    {
        var id = _random.Next(40);
        var name = "p" + id;
        if (_random.Next(12) == 0)
        {
            // Past the large-value threshold: the store keeps it on disk.
            name += new string('x', 2_000);
        }

        return new Player(id, name, _random.Next(5), _random.Next(12));
    }
}
