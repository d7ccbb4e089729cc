using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Tests;

/// <summary>
/// The generated writes the index benchmarks rely on: that every write of <see cref="Data.ChainedUpdates"/> changes its
/// record, checked against a plain dictionary of each record's current value.
/// </summary>
public sealed class DataTests
{
    [Fact]
    public void ChainedUpdates_ChangeTheScoreAndTheNameOfTheirRecordOnEveryWrite_AlsoOfARecordPickedAgain()
    {
        var records = Data.SmallRange(50).ToArray();
        var writes = Data.ChainedUpdates(records, 400, renamed: true);

        var current = records.ToDictionary(r => r.Id, r => (r.Score, r.Name));
        Assert.True(writes.Length - writes.Select(w => w.Id).Distinct().Count() > 100, "400 picks of 50 records pick some again");
        foreach (var write in writes)
        {
            var (score, name) = current[write.Id];
            Assert.NotEqual(score, write.Score);
            Assert.NotEqual(name, write.Name);
            current[write.Id] = (write.Score, write.Name);
        }

        // The same records are picked, in the same order, as the random updates of the same seed.
        Assert.Equal(Data.RandomUpdates(records, 400, renamed: true).Select(w => w.Id), writes.Select(w => w.Id));
    }
}
