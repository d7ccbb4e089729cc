using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// The feed from the start, replayed into a dictionary, equals a model of the acknowledged writes after random single
/// writes, atomic batches, deletes, compactions and crashes with reopens, plain and encrypted.
/// </summary>
public sealed class ChangeFeedModelTests
{
    public static TheoryData<int, bool> Seeds()
    {
        var data = new TheoryData<int, bool>();
        foreach (var seed in Stress.Seeds(1, 3, 40))
        {
            data.Add(seed, seed % 2 == 0);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Changes_FromStart_ReplayToTheModelAfterWritesBatchesCompactionsAndCrashes(int seed, bool encrypted)
    {
        var random = new Random(seed);
        var memory = new MemoryStorage();
        var options = new StoreOptions
        {
            Durability = Durability.WriteThrough,
            MaxShardBytes = 64 * 1024,
            CompactionThreshold = 0,
            EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
        };
        var model = new Dictionary<int, Account>();
        var store = await StellarStore.OpenAsync(memory, options);
        var collection = store.GetCollection<int, Account>("accounts", a => a.Id);
        var steps = Stress.Pick(300, 3000);
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var roll = random.Next(100);
                if (roll < 45)
                {
                    var account = new Account(random.Next(200), random.Next(1_000_000));
                    await collection.UpsertAsync(account);
                    model[account.Id] = account;
                }
                else if (roll < 60)
                {
                    var id = random.Next(200);
                    await collection.DeleteAsync(id);
                    model.Remove(id);
                }
                else if (roll < 80)
                {
                    var writes = Enumerable.Range(0, random.Next(1, 20)).Select(_ => new Account(random.Next(200), random.Next(1_000_000))).ToList();
                    var deleted = random.Next(200);
                    await collection.WriteAsync(b =>
                    {
                        foreach (var write in writes)
                        {
                            b.Upsert(write);
                        }

                        b.Delete(deleted);
                    });
                    foreach (var write in writes)
                    {
                        model[write.Id] = write;
                    }

                    model.Remove(deleted);
                }
                else if (roll < 90)
                {
                    // Writes that wait behind each other share blocks: several units in one block.
                    var accounts = Enumerable.Range(0, 8).Select(_ => new Account(random.Next(200), random.Next(1_000_000))).ToList();
                    await Task.WhenAll(accounts.Select(a => collection.UpsertAsync(a)));
                    foreach (var account in accounts)
                    {
                        model[account.Id] = account;
                    }
                }
                else if (roll < 95)
                {
                    await collection.CompactAsync();
                }
                else
                {
                    await Crash.AndAbandonAsync(memory, store, losesUnsyncedData: false);
                    store = await StellarStore.OpenAsync(memory, options);
                    collection = store.GetCollection<int, Account>("accounts", a => a.Id);
                }

                if (step % 50 == 49 || step == steps - 1)
                {
                    // The last write is a put, so the read reaches the end.
                    var sentinel = new Account(-1, step);
                    await collection.UpsertAsync(sentinel);
                    model[sentinel.Id] = sentinel;
                    var changes = await FeedReading.ReadToEndAsync(collection, ChangePosition.Start);
                    Assert.All(changes.Zip(changes.Skip(1)), pair => Assert.True(pair.First.Position < pair.Second.Position, $"{pair.First.Position} then {pair.Second.Position}"));
                    var replayed = FeedReading.Apply(changes);
                    Assert.Equal(model.OrderBy(p => p.Key), replayed.OrderBy(p => p.Key));
                }
            }
        }
        finally
        {
            await store.DisposeAsync();
        }
    }
}
