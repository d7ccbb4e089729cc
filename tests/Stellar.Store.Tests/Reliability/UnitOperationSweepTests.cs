using System.Globalization;
using Stellar.Store.Storage;
using Xunit.Abstractions;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Fails each storage call of one write across three collections in turn (its parts, a large value, the decision in the
/// unit log), before its effect and after it, then runs a second unit over two other collections, crashes the process or
/// the machine and reopens. The first unit must be there whole when it was acknowledged and whole or not at all when its
/// outcome was uncertain; the second likewise, and its decision must never make the first one's parts count.
/// </summary>
public sealed class UnitOperationSweepTests(ITestOutputHelper output)
{
    private const int LargeNote = 20_000;

    public static TheoryData<Durability, bool, bool, bool> Cases()
    {
        var cases = new TheoryData<Durability, bool, bool, bool>();
        foreach (var afterEffect in new[] { false, true })
        {
            cases.Add(Durability.Fsync, true, afterEffect, false);
            cases.Add(Durability.Fsync, false, afterEffect, true);
            cases.Add(Durability.WriteThrough, false, afterEffect, false);
            cases.Add(Durability.Buffered, false, afterEffect, true);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task WriteAsync_WhenEachStorageCallOfAUnitFails_ReopensWithEveryUnitWholeOrAbsent(Durability durability, bool machineCrash, bool afterEffect, bool encrypted)
    {
        var options = new StoreOptions
        {
            Durability = durability,
            EncryptionKey = encrypted ? Enumerable.Range(0, 32).Select(i => (byte)(i * 3)).ToArray() : null,
            CompactionThreshold = 0,
        };
        var timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect;
        var clean = await RunAsync(options, timing, failAt: null, machineCrash);
        Assert.True(clean.Steps >= 4, $"the unit took only {clean.Steps} storage calls");
        Assert.Null(clean.Failure);

        int runs = 0, uncertain = 0, present = 0;
        for (var k = 1; k <= clean.Steps; k++)
        {
            var run = await RunAsync(options, timing, k, machineCrash);
            runs++;
            uncertain += run.Uncertain ? 1 : 0;
            present += run.Present ? 1 : 0;
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{durability}, {timing}, {(machineCrash ? "machine" : "process")} crash, {(encrypted ? "encrypted" : "plain")}: {runs} runs over {clean.Steps} storage calls, {uncertain} uncertain outcomes, {present} units found whole after the reopen"));
        Assert.True(uncertain > 0, "no fault made a unit's outcome uncertain");
    }

    private static Collection<int, UnitItem> Items(StellarStore store, string name) => store.GetCollection<int, UnitItem>(name, i => i.Id);

    private static async Task<(int Steps, bool Uncertain, bool Present, Exception? Failure)> RunAsync(StoreOptions options, FaultTiming timing, int? failAt, bool machineCrash)
    {
        var memory = new MemoryStorage();
        using var fence = new CrashFence(memory);
        var faults = new FaultInjectingStorage(fence) { Timing = timing, TornAppendLength = (failAt ?? 0) * 7 % 60 };
        var context = string.Create(CultureInfo.InvariantCulture, $"{options.Durability}, {timing}, fault at call {failAt}, {(machineCrash ? "machine" : "process")} crash");
        var store = await StellarStore.OpenAsync(faults, options);
        var names = new[] { "a", "b", "c", "d", "e" };
        var items = names.ToDictionary(n => n, n => Items(store, n));
        foreach (var name in names)
        {
            await items[name].WriteAsync(batch =>
            {
                for (var i = 0; i < 10; i++)
                {
                    batch.Insert(new UnitItem(i, 10, "prep"));
                }
            });
        }

        // A first unit makes the unit log, so the unit under test is a store's ordinary unit.
        await store.WriteAsync(tx =>
        {
            tx.In(items["d"]).Update(new UnitItem(0, 11, "first"));
            tx.In(items["e"]).Update(new UnitItem(0, 9, "first"));
        });
        await store.FlushAsync();

        var start = faults.OperationCount;
        faults.FailOperationAt = start + failAt;
        var unit = await Record.ExceptionAsync(() => store.WriteAsync(tx =>
        {
            tx.In(items["a"]).Update(new UnitItem(1, 100, "unit")).Insert(new UnitItem(20, 5, "unit"));
            tx.In(items["b"]).Delete(2).Upsert(new UnitItem(3, 7, new string('L', LargeNote)));
            tx.In(items["c"]).Insert(new UnitItem(21, -112, "unit"));
        }));
        if (options.Durability == Durability.Buffered && unit is null)
        {
            // Buffered promises nothing before a flush, and the decision reaches storage only then: the flush is part
            // of the unit's storage calls, and what makes it count.
            unit = await Record.ExceptionAsync(store.FlushAsync);
        }

        var steps = faults.OperationCount - start;
        Assert.True(unit is null or StoreFaultedException, $"{context}: the unit or its flush failed with {unit}");

        var second = await Record.ExceptionAsync(() => store.WriteAsync(tx =>
        {
            tx.In(items["d"]).Insert(new UnitItem(50, 1, "second"));
            tx.In(items["e"]).Insert(new UnitItem(50, -1, "second"));
        }));
        Assert.True(second is null or StoreFaultedException, $"{context}: the second unit failed with {second}");
        if (options.Durability == Durability.Buffered && second is null)
        {
            second = await Record.ExceptionAsync(store.FlushAsync);
        }

        await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: machineCrash, tornTail: new Random(failAt ?? 0));

        bool present;
        await using (var reopened = await StellarStore.OpenAsync(memory, options))
        {
            var again = names.ToDictionary(n => n, n => Items(reopened, n));
            present = again["a"].Get(1)?.Gold == 100;
            var expected = Prepared(names);
            expected["d"][0] = new UnitItem(0, 11, "first");
            expected["e"][0] = new UnitItem(0, 9, "first");
            if (present)
            {
                expected["a"][1] = new UnitItem(1, 100, "unit");
                expected["a"][20] = new UnitItem(20, 5, "unit");
                expected["b"].Remove(2);
                expected["b"][3] = new UnitItem(3, 7, new string('L', LargeNote));
                expected["c"][21] = new UnitItem(21, -112, "unit");
            }

            Assert.True(present || unit is not null, $"{context}: an acknowledged unit is gone");
            var secondPresent = again["d"].TryGet(50, out _);
            Assert.True(secondPresent || second is not null, $"{context}: the acknowledged second unit is gone");
            if (secondPresent)
            {
                expected["d"][50] = new UnitItem(50, 1, "second");
                expected["e"][50] = new UnitItem(50, -1, "second");
            }

            foreach (var name in names)
            {
                var actual = again[name].Query().ToDictionary(i => i.Id);
                Assert.True(actual.Count == expected[name].Count && expected[name].All(e => actual.TryGetValue(e.Key, out var v) && v == e.Value),
                    $"{context}: collection {name} holds [{string.Join(", ", actual.Values.OrderBy(v => v.Id).Select(Show))}], expected [{string.Join(", ", expected[name].Values.OrderBy(v => v.Id).Select(Show))}] (unit {(present ? "present" : "absent")})");
            }

            // The reopened store takes units over the collections the failure faulted.
            await reopened.WriteAsync(tx =>
            {
                tx.In(again["a"]).Upsert(new UnitItem(99, 1, "after"));
                tx.In(again["b"]).Upsert(new UnitItem(99, 1, "after"));
            });
        }

        return (steps, unit is not null, present, unit);
    }

    private static Dictionary<string, Dictionary<int, UnitItem>> Prepared(string[] names) =>
        names.ToDictionary(n => n, _ => Enumerable.Range(0, 10).ToDictionary(i => i, i => new UnitItem(i, 10, "prep")));

    private static string Show(UnitItem item) => string.Create(CultureInfo.InvariantCulture, $"{item.Id}:{item.Gold}:{item.Note[..Math.Min(item.Note.Length, 6)]}");
}
