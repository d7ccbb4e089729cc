using System.Globalization;
using Stellar.Store.Storage;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Seeded runs of single writes, atomic batches, units across two to four collections (some designed to be rejected)
/// and compactions, in concurrent bursts on disjoint keys, with a storage fault injected at a random call (before or
/// after its effect, appends torn) and a crash of the process or the machine after each stretch. After every reopen the
/// store must equal the model: every acknowledged step whole, every rejected one absent, and every step whose outcome was
/// uncertain there whole or not at all.
/// </summary>
public sealed class UnitModelTests(ITestOutputHelper output)
{
    private const int Collections = 4;

    private static readonly (Durability Durability, bool MachineCrash)[] Modes =
        [(Durability.Fsync, true), (Durability.Fsync, false), (Durability.WriteThrough, false), (Durability.Buffered, false)];

    [Fact]
    public async Task Steps_WithFaultsAndCrashes_LeaveEveryUnitWholeOrAbsentAsTheModelSays()
    {
        var seeds = Stress.Seeds(first: 1, normal: 8, stress: 200);
        var totals = new int[6];
        foreach (var seed in seeds)
        {
            await RunAsync(seed, Stress.Pick(5, 12), totals);
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{seeds.Count} seeds: {totals[0]} steps acknowledged, {totals[1]} rejected as designed, {totals[2]} uncertain, {totals[3]} uncertain found applied, {totals[4]} faults injected, {totals[5]} crashes"));
        Assert.True(totals[2] > 0 && totals[1] > 0, "no step was uncertain, or none rejected");
    }

    private static async Task RunAsync(int seed, int stretches, int[] totals)
    {
        var (durability, machineCrash) = Modes[seed % Modes.Length];
        var options = new StoreOptions
        {
            Durability = durability,
            MaxShardBytes = 64 * 1024,
            LargeValueThreshold = 1024,
            CompactionThreshold = 0,
            EncryptionKey = seed % 3 == 0 ? Enumerable.Range(0, 32).Select(i => (byte)(i + seed)).ToArray() : null,
        };
        var random = new Random(seed);
        var model = new UnitModel(Collections, keys: 24, random);
        var memory = new MemoryStorage();
        for (var stretch = 0; stretch < stretches; stretch++)
        {
            var context = string.Create(CultureInfo.InvariantCulture, $"seed {seed} ({durability}, {(machineCrash ? "machine" : "process")} crash) stretch {stretch}; rerun with STELLAR_SEED={seed}");
            using var fence = new CrashFence(memory);
            var faults = new FaultInjectingStorage(fence)
            {
                Timing = random.Next(2) == 0 ? FaultTiming.BeforeEffect : FaultTiming.AfterEffect,
                TornAppendLength = random.Next(0, 50),
            };
            var store = await StellarStore.OpenAsync(faults, options);
            var items = Enumerable.Range(0, Collections).Select(c => store.GetCollection<int, UnitItem>($"c{c}", i => i.Id)).ToArray();
            if (random.Next(10) < 8)
            {
                faults.FailOperationAt = faults.OperationCount + random.Next(1, 80);
            }

            var uncertain = new List<UnitModelOp>();
            for (var burst = 0; burst < 6 && uncertain.Count == 0; burst++)
            {
                var ops = model.NextBurst(random.Next(1, 5));
                var outcomes = await Task.WhenAll(ops.Select(op => Record.ExceptionAsync(() => ExecuteAsync(store, items, op))));
                if (durability == Durability.Buffered && await Record.ExceptionAsync(store.FlushAsync) is not null)
                {
                    // The flush that makes a Buffered step durable failed: every step of the burst may be lost.
                    outcomes = outcomes.Select(o => o ?? new StoreFaultedException("the flush failed", new IOException())).ToArray();
                }

                for (var i = 0; i < ops.Count; i++)
                {
                    var op = ops[i];
                    var outcome = outcomes[i];
                    if (op.What == UnitModelOp.Kind.Compaction)
                    {
                        Assert.True(outcome is null or StoreFaultedException || outcome.GetType() == typeof(IOException), $"{context}: a compaction failed with {outcome}");
                        continue;
                    }

                    if (outcome is null)
                    {
                        Assert.False(op.Rejected, $"{context}: a {op.What} that breaks a precondition was acknowledged");
                        model.Apply(op);
                        totals[0]++;
                    }
                    else if (outcome is DuplicateKeyException or KeyNotFoundException)
                    {
                        Assert.True(op.Rejected, $"{context}: a valid {op.What} was rejected: {outcome.Message}");
                        totals[1]++;
                    }
                    else if (outcome is StoreFaultedException || (op.What == UnitModelOp.Kind.Unit && outcome.GetType() == typeof(IOException)))
                    {
                        // An IOException: the unit log could not be made at the first unit (nothing was submitted).
                        // Counted as uncertain all the same: the check then only asks that the unit is whole or absent.
                        uncertain.Add(op);
                        totals[2]++;
                    }
                    else
                    {
                        throw new XunitException($"{context}: a {op.What} failed with {outcome}");
                    }
                }
            }

            totals[4] += faults.FaultCount;
            totals[5]++;
            await Crash.AndAbandonAsync(fence, memory, store, losesUnsyncedData: machineCrash, tornTail: new Random(seed * 100 + stretch));

            await using var reopened = await StellarStore.OpenAsync(memory, options);
            var actual = Enumerable.Range(0, Collections)
                .Select(c => reopened.GetCollection<int, UnitItem>($"c{c}", i => i.Id).Query().ToDictionary(i => i.Id))
                .ToList();
            var applied = uncertain.Count(op => !op.Rejected && op.Writes.All(w => actual[w.Collection].GetValueOrDefault(w.Key) == w.Value));
            model.Check(actual, uncertain, context);
            totals[3] += applied;
        }
    }

    private static async Task ExecuteAsync(StellarStore store, Collection<int, UnitItem>[] items, UnitModelOp op)
    {
        switch (op.What)
        {
            case UnitModelOp.Kind.Compaction:
                await items[op.Compact].CompactAsync();
                return;
            case UnitModelOp.Kind.Single:
                var write = op.Writes[0];
                var collection = items[write.Collection];
                await (write.What switch
                {
                    UnitModelWrite.Kind.Insert => collection.InsertAsync(write.Value!),
                    UnitModelWrite.Kind.Update => collection.UpdateAsync(write.Value!),
                    UnitModelWrite.Kind.Upsert => collection.UpsertAsync(write.Value!),
                    _ => collection.DeleteAsync(write.Key),
                });
                return;
            case UnitModelOp.Kind.Batch:
                await items[op.Writes[0].Collection].WriteAsync(b => Fill(b, op.Writes));
                return;
            default:
                await store.WriteAsync(tx =>
                {
                    foreach (var group in op.Writes.GroupBy(w => w.Collection))
                    {
                        Fill(tx.In(items[group.Key]), group.ToList());
                    }
                });
                return;
        }
    }

    private static void Fill(WriteBatch<int, UnitItem> batch, IEnumerable<UnitModelWrite> writes)
    {
        foreach (var write in writes)
        {
            _ = write.What switch
            {
                UnitModelWrite.Kind.Insert => batch.Insert(write.Value!),
                UnitModelWrite.Kind.Update => batch.Update(write.Value!),
                UnitModelWrite.Kind.Upsert => batch.Upsert(write.Value!),
                _ => batch.Delete(write.Key),
            };
        }
    }
}
