extern alias v1;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Codecs.Evolution;
using V1 = v1::Stellar.Store.Tests.Codecs.Evolution;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// A compaction moves records; it never rewrites what a record holds. A version of the game that reads records written
/// by another version (an update, or a rollback) and compacts them must leave every member the other version wrote, so
/// that going back to it finds them. The oracle is the test's own record of what each version wrote.
/// </summary>
public sealed class EvolvedRecordCompactionTests
{
    private const int Heroes = 60;

    [Fact]
    public async Task CompactAsync_AfterARollback_KeepsTheMembersOnlyTheNewerVersionKnows()
    {
        var storage = new MemoryStorage();
        var written = new Dictionary<string, (long Gold, string Badge)>();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { CompactionThreshold = 0 }))
        {
            var heroes = store.GetCollection<string, Hero>("heroes", h => h.Id);
            for (var i = 0; i < Heroes; i++)
            {
                var hero = new Hero { Id = $"h{i}", Level = i, Gold = 1_000 + i, Badges = [$"badge {i}"] };
                await heroes.UpsertAsync(hero);
                written[hero.Id] = (hero.Gold, hero.Badges[0]);
            }
        }

        // The rollback: version 1 levels some heroes up (rewriting them, so the old copies are dead) and compacts.
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { CompactionThreshold = 0 }))
        {
            var heroes = store.GetCollection<string, V1.Hero>("heroes", h => h.Id);
            for (var round = 0; round < 3; round++)
            {
                await heroes.UpsertAsync(new V1.Hero { Id = "rolled back", Level = round, Title = "the Patient" });
            }

            await heroes.CompactAsync();
        }

        // Forward again: every hero version 1 never wrote holds what version 2 gave it.
        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, Hero>("heroes", h => h.Id);
            foreach (var (id, (gold, badge)) in written)
            {
                var hero = heroes.Get(id);
                Assert.NotNull(hero);
                Assert.Equal((gold, badge), (hero.Gold, Assert.Single(hero.Badges)));
            }
        }
    }

    [Fact]
    public async Task CompactAsync_AfterAnUpdateThatAddsMembers_SucceedsAndARollbackFindsTheRemovedMembers()
    {
        var storage = new MemoryStorage();
        var titles = new Dictionary<string, string>();
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { CompactionThreshold = 0 }))
        {
            var heroes = store.GetCollection<string, V1.Hero>("heroes", h => h.Id);
            for (var i = 0; i < Heroes; i++)
            {
                var hero = new V1.Hero { Id = $"h{i}", Level = i, Title = i % 2 == 0 ? "" : "t" };
                await heroes.UpsertAsync(hero);
                titles[hero.Id] = hero.Title;
            }
        }

        // The update: version 2 (Gold and Badges added, Title removed) writes one hero a few times and compacts.
        await using (var store = await StellarStore.OpenAsync(storage, new StoreOptions { CompactionThreshold = 0 }))
        {
            var heroes = store.GetCollection<string, Hero>("heroes", h => h.Id);
            for (var round = 0; round < 3; round++)
            {
                await heroes.UpsertAsync(new Hero { Id = "updated", Level = round });
            }

            await heroes.CompactAsync();
            Assert.Null(heroes.Statistics.LastCompactionError);
        }

        await using (var store = await StellarStore.OpenAsync(storage))
        {
            var heroes = store.GetCollection<string, V1.Hero>("heroes", h => h.Id);
            foreach (var (id, title) in titles)
            {
                var hero = heroes.Get(id);
                Assert.NotNull(hero);
                Assert.Equal(title, hero.Title);
            }
        }
    }
}
