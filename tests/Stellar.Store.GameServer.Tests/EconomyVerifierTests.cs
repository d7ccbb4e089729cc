using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>The verifier must pass a consistent economy and catch each kind of broken invariant, across the collections.</summary>
public sealed class EconomyVerifierTests
{
    // Two characters who traded: A paid B 10 gold and gave item 11 for B's item 12.
    private readonly List<AccountRecord> _accounts =
    [
        new("a", 1, 1, DateTime.UnixEpoch),
        new("b", 2, 1, DateTime.UnixEpoch),
    ];

    private readonly List<CharacterRecord> _characters =
    [
        new(1, "a", 90, [12]),
        new(2, "b", 110, [11]),
    ];

    private readonly List<ItemRecord> _items =
    [
        new(11, 2, "sword", 1),
        new(12, 1, "ring", 1),
    ];

    private readonly List<LedgerEntry> _ledger =
    [
        new(3, 1, 100, LedgerReason.Grant, 0),
        new(4, 2, 100, LedgerReason.Grant, 0),
        new(6, 1, -10, LedgerReason.TradePaid, 5),
        new(7, 2, 10, LedgerReason.TradeReceived, 5),
    ];

    private readonly List<TradeRecord> _trades = [new(5, 1, 2, 10, 12, 11, 6, 7)];

    // Both are online, held by the server run that crashed before this one.
    private readonly List<SessionRecord> _sessions =
    [
        new(1, "a", DateTime.UnixEpoch, CrashedRun),
        new(2, "b", DateTime.UnixEpoch, CrashedRun),
    ];

    private static Guid CrashedRun { get; } = new("00000000-0000-0000-0000-00000000c0de");

    private static Guid StoppedRun { get; } = new("00000000-0000-0000-0000-0000000057a9");

    [Fact]
    public void Verify_WhenConsistent_PassesWithTotals()
    {
        var result = Verify(acknowledgedTrades: [5]);

        Assert.True(result.Ok, string.Join("; ", result.Failures));
        Assert.Equal(200, result.TotalGold);
        Assert.Equal(200, result.LedgerSum);
        Assert.Equal((2, 2, 2, 4, 1, 2), (result.Accounts, result.Characters, result.Items, result.LedgerEntries, result.Trades, result.Sessions));
    }

    [Fact]
    public void Verify_WhenGoldChangedWithoutLedgerEntry_Fails()
    {
        _characters[0] = _characters[0] with { Gold = 95 };

        var result = Verify();

        Assert.False(result.Ok);
        Assert.Contains(result.Failures, f => f.Contains("character 1 has 95 gold", StringComparison.Ordinal));
        Assert.Contains(result.Failures, f => f.Contains("total gold 205", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnItemIsCarriedTwice_Fails()
    {
        _characters[0] = _characters[0] with { Inventory = [12, 11] };

        Assert.Contains(Verify().Failures, f => f.Contains("item 11 is carried twice", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnItemIsInNoInventory_Fails()
    {
        _items.Add(new ItemRecord(99, 1, "lost", 1));

        Assert.Contains(Verify().Failures, f => f.Contains("item 99", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnItemChangedHandsWithoutItsCharacters_Fails()
    {
        // Half a trade: the item's new owner is stored, the inventories are not.
        _items[0] = _items[0] with { OwnerId = 1 };

        Assert.Contains(Verify().Failures, f => f.Contains("carries item 11, whose owner is 1", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenATradeLostOneLedgerLeg_Fails()
    {
        _ledger.RemoveAll(l => l.Id == 7);

        Assert.Contains(Verify().Failures, f => f.Contains("trade 5 lacks its received ledger entry 7", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenALedgerLegHasNoTrade_Fails()
    {
        _trades.Clear();

        Assert.Contains(Verify().Failures, f => f.Contains("trade 5, which does not exist", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnAccountLacksItsCharacter_Fails()
    {
        _accounts.Add(new AccountRecord("c", 8, 1, DateTime.UnixEpoch));

        Assert.Equal(["account 'c' lacks its character 8"], Verify().Failures);
    }

    [Fact]
    public void Verify_WhenACharacterHasNoAccount_Fails()
    {
        _accounts.RemoveAll(a => a.Name == "b");

        Assert.Equal(["character 2 ('b') has no account naming it"], Verify().Failures);
    }

    [Fact]
    public void Verify_WhenAnAcknowledgedTradeIsMissing_Fails()
    {
        Assert.Equal(["acknowledged trade 42 is missing"], Verify(acknowledgedTrades: [5, 42]).Failures);
    }

    [Fact]
    public void Verify_WhenASessionNamesACharacterThatDoesNotExist_Fails()
    {
        _sessions.Add(new SessionRecord(9, "nobody", DateTime.UnixEpoch, CrashedRun));

        Assert.Equal(["session of character 9 ('nobody'), which does not exist"], Verify().Failures);
    }

    [Fact]
    public void Verify_WhenASessionNamesAnAccountOtherThanItsCharacters_Fails()
    {
        _sessions[1] = _sessions[1] with { Account = "a" };

        Assert.Equal(["session of character 2 names account 'a', but the character belongs to 'b'"], Verify().Failures);
    }

    [Fact]
    public void Verify_WhenASessionOfTheStoppedRunIsLive_FailsButLeavesThoseOfAnEarlierRun()
    {
        Assert.True(Verify(stoppedRun: StoppedRun).Ok);

        _sessions[0] = _sessions[0] with { ServerRunId = StoppedRun };

        Assert.Equal(["session of character 1 ('a') is live, though its server run stopped and every player logged out"], Verify(stoppedRun: StoppedRun).Failures);
    }

    private VerificationResult Verify(IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null) =>
        EconomyVerifier.Verify(new EconomyState(_accounts, _characters, _items, _ledger, _trades, _sessions), acknowledgedTrades, stoppedRun);
}
