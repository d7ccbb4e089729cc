using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// One suite for both keepers of the game's state: a unit across the economy's collections is applied whole, and a
/// rejected one leaves nothing behind, in the store and in the dictionaries that <c>--compare</c> plays against.
/// </summary>
public sealed class GameStoreUnitTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public static TheoryData<string> Stores => new() { "store", "memory" };

    public void Dispose() => _dir.Dispose();

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task WriteAsync_CreationThenLoot_EveryCollectionHoldsBothUnitsAndTheEconomyVerifies(string kind)
    {
        await using var store = await OpenAsync(kind);

        await store.WriteAsync(Creation());
        await store.WriteAsync(new GameUnit()
            .Update(new CharacterRecord(1, "a", 107, [3]))
            .Insert(new ItemRecord(3, 1, "sword", 1))
            .Insert(new LedgerEntry(4, 1, 7, LedgerReason.Loot, 0)));

        Assert.Equal(1, store.GetAccount("a")!.CharacterId);
        Assert.Equal(107, store.GetCharacter(1)!.Gold);
        Assert.Equal([3L], store.ItemsOwnedBy(1).Select(i => i.Id));
        Assert.Equal(4, store.HighestId());
        var verification = store.Verify();
        Assert.True(verification.Ok, string.Join("; ", verification.Failures));
        Assert.Equal((1, 1, 1, 2, 107L), (verification.Accounts, verification.Characters, verification.Items, verification.LedgerEntries, verification.LedgerSum));
    }

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task WriteAsync_WhenOneInsertOfTheUnitIsADuplicate_StoresNothingOfItInAnyCollection(string kind)
    {
        await using var store = await OpenAsync(kind);
        await store.WriteAsync(Creation());

        // The loot's ledger entry reuses the id of the starting gold's entry: the whole loot is rejected.
        await Assert.ThrowsAnyAsync<Exception>(() => store.WriteAsync(new GameUnit()
            .Update(new CharacterRecord(1, "a", 107, [3]))
            .Insert(new ItemRecord(3, 1, "sword", 1))
            .Insert(new LedgerEntry(2, 1, 7, LedgerReason.Loot, 0))));

        Assert.Equal(100, store.GetCharacter(1)!.Gold);
        Assert.Empty(store.ItemsOwnedBy(1));
        Assert.Equal(2, store.HighestId());
        Assert.True(store.Verify().Ok);
    }

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task WriteAsync_WhenTheUnitUpdatesAMissingCharacter_StoresNothingOfItInAnyCollection(string kind)
    {
        await using var store = await OpenAsync(kind);
        await store.WriteAsync(Creation());

        await Assert.ThrowsAnyAsync<Exception>(() => store.WriteAsync(new GameUnit()
            .Update(new CharacterRecord(9, "nobody", 7, [10]))
            .Insert(new ItemRecord(10, 9, "sword", 1))
            .Insert(new LedgerEntry(11, 9, 7, LedgerReason.Loot, 0))));

        Assert.Null(store.GetCharacter(9));
        Assert.Empty(store.ItemsOwnedBy(9));
        Assert.Equal(2, store.HighestId());
        Assert.True(store.Verify().Ok);
    }

    /// <summary>Account "a", its character 1 with 100 gold, and the starting gold's ledger entry 2.</summary>
    [Theory]
    [MemberData(nameof(Stores))]
    public async Task TopScores_AfterScoresChangeWithTies_AreTheHighestFirstTiesToTheLowestIdAndSurviveAReopen(string kind)
    {
        var random = new Random(3);
        var expected = new Dictionary<long, ScoreRecord>();
        await using (var store = await OpenAsync(kind))
        {
            for (var i = 0; i < 300; i++)
            {
                var score = new ScoreRecord(random.Next(1, 60), "c", random.Next(0, 20) * 10);
                await store.UpsertScoreAsync(score);
                expected[score.CharacterId] = score;
            }

            // Independent oracle: the last score of each character, ordered by LINQ.
            var best = expected.Values.OrderByDescending(s => s.Score).ThenBy(s => s.CharacterId).ToList();
            Assert.Equal(best.Take(10), store.TopScores(10));
            Assert.Equal(best, store.TopScores(1_000));
        }

        if (kind == "store")
        {
            await using var reopened = await OpenAsync(kind);
            Assert.Equal(expected.Values.OrderByDescending(s => s.Score).ThenBy(s => s.CharacterId).Take(25), reopened.TopScores(25));
        }
    }

    private static GameUnit Creation() => new GameUnit()
        .Insert(new AccountRecord("a", 1, 1, DateTime.UnixEpoch))
        .Insert(new CharacterRecord(1, "a", 100, []))
        .Insert(new LedgerEntry(2, 1, 100, LedgerReason.Grant, 0));

    private async Task<IGameStore> OpenAsync(string kind) => kind == "store"
        ? await StellarGameStore.OpenAsync(_dir.Path, Durability.WriteThrough)
        : new MemoryGameStore();
}
