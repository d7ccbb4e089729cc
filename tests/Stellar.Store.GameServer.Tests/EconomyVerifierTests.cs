using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>The verifier must pass a consistent economy and catch each kind of broken invariant.</summary>
public sealed class EconomyVerifierTests
{
    // Two characters who traded: A paid B 10 gold and gave item 11 for B's item 12.
    private static List<EconomyRecord> Consistent() =>
    [
        new CharacterRecord(1, "a", 90, 0, 0, [12]),
        new CharacterRecord(2, "b", 110, 0, 0, [11]),
        new ItemRecord(11, 2, "sword", 1),
        new ItemRecord(12, 1, "ring", 1),
        new LedgerEntry(3, 1, 100, LedgerReason.Grant, 0),
        new LedgerEntry(4, 2, 100, LedgerReason.Grant, 0),
        new TradeRecord(5, 1, 2, 10, 12, 11, 6, 7),
        new LedgerEntry(6, 1, -10, LedgerReason.TradePaid, 5),
        new LedgerEntry(7, 2, 10, LedgerReason.TradeReceived, 5),
    ];

    [Fact]
    public void Verify_WhenConsistent_PassesWithTotals()
    {
        var result = EconomyVerifier.Verify(Consistent(), acknowledgedTrades: [5]);

        Assert.True(result.Ok, string.Join("; ", result.Failures));
        Assert.Equal(200, result.TotalGold);
        Assert.Equal(200, result.LedgerSum);
        Assert.Equal((2, 2, 4, 1), (result.Characters, result.Items, result.LedgerEntries, result.Trades));
    }

    [Fact]
    public void Verify_WhenGoldChangedWithoutLedgerEntry_Fails()
    {
        var records = Consistent();
        records[0] = ((CharacterRecord)records[0]) with { Gold = 95 };

        var result = EconomyVerifier.Verify(records);

        Assert.False(result.Ok);
        Assert.Contains(result.Failures, f => f.Contains("character 1 has 95 gold", StringComparison.Ordinal));
        Assert.Contains(result.Failures, f => f.Contains("total gold 205", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnItemIsCarriedTwice_Fails()
    {
        var records = Consistent();
        records[0] = ((CharacterRecord)records[0]) with { Inventory = [12, 11] };

        var result = EconomyVerifier.Verify(records);

        Assert.Contains(result.Failures, f => f.Contains("item 11 is carried twice", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnItemIsInNoInventory_Fails()
    {
        var records = Consistent();
        records.Add(new ItemRecord(99, 1, "lost", 1));

        Assert.Contains(EconomyVerifier.Verify(records).Failures, f => f.Contains("item 99", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenATradeLostOneLedgerLeg_Fails()
    {
        var records = Consistent();
        records.RemoveAll(r => r is LedgerEntry { Id: 7 });

        var result = EconomyVerifier.Verify(records);

        Assert.Contains(result.Failures, f => f.Contains("trade 5 lacks its received ledger entry 7", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenALedgerLegHasNoTrade_Fails()
    {
        var records = Consistent();
        records.RemoveAll(r => r is TradeRecord);

        Assert.Contains(EconomyVerifier.Verify(records).Failures, f => f.Contains("trade 5, which does not exist", StringComparison.Ordinal));
    }

    [Fact]
    public void Verify_WhenAnAcknowledgedTradeIsMissing_Fails()
    {
        var result = EconomyVerifier.Verify(Consistent(), acknowledgedTrades: [5, 42]);

        Assert.Equal(["acknowledged trade 42 is missing"], result.Failures);
    }
}
