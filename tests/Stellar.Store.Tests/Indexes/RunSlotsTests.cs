using Stellar.Store.Indexes;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Tests.Indexes;

/// <summary>The table that finds a record's slot in a run, against the run's own list of keys.</summary>
public sealed class RunSlotsTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(1_000)]
    [InlineData(65_536)]
    public void Find_GivesEachKeyItsSlotAndNothingForOthers_EvenForKeysThatAreMultiplesOfAPowerOfTwo(int count)
    {
        // Spread keys, then keys 1,024 apart: their low bits agree, so a table indexed by the raw hash would pile them up.
        var keys = Enumerable.Range(0, count).Select(i => i % 2 == 0 ? i * 7 - count : i << 10).Distinct().ToArray();
        var slots = new RunSlots<int, int, string>(Entries(keys), keys.Length, equality: null);
        for (var slot = 0; slot < keys.Length; slot++)
        {
            Assert.Equal(slot, slots.Find(keys[slot]));
        }

        var absent = new HashSet<int>(keys);
        foreach (var key in Enumerable.Range(-count - 5, 3 * count + 10).Where(k => !absent.Contains(k)).Take(2_000))
        {
            Assert.Equal(-1, slots.Find(key));
        }
    }

    [Fact]
    public void Find_ComparesKeysByTheCollectionsEquality()
    {
        var keys = new[] { "Alpha", "beta", "GAMMA" };
        var slots = new RunSlots<int, string, string>(Entries(keys), keys.Length, StringComparer.OrdinalIgnoreCase);
        Assert.Equal(0, slots.Find("ALPHA"));
        Assert.Equal(1, slots.Find("Beta"));
        Assert.Equal(2, slots.Find("gamma"));
        Assert.Equal(-1, slots.Find("delta"));
    }

    private static RunEntry<int, TKey, string>[] Entries<TKey>(TKey[] keys) =>
        keys.Select((key, slot) => new RunEntry<int, TKey, string>(slot, key, VersionNode<string>.Create(1, "v", deleted: false, shardId: 0, size: 1, next: null, location: null, expiresAt: 0))).ToArray();
}
