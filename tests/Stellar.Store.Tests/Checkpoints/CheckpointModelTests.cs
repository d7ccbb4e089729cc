using System.Globalization;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// Random steps on two collections of a store on files (upserts, deletes, atomic batches, writes across both,
/// compactions, reopens), with checkpoints taken among them: every checkpoint, restored or opened read-only at a later
/// step, equals the test's own model of both collections at the moment it was taken. Crashes during a checkpoint are
/// the kill test's (see <c>UnitKillTests</c>).
/// </summary>
public sealed class CheckpointModelTests
{
    private static readonly StoreOptions Options = new() { MaxShardBytes = 64 * 1024, CompactionThreshold = 0 };

    [Fact]
    public async Task RandomSteps_EveryCheckpointEqualsTheModelAtItsCut()
    {
        foreach (var seed in Stress.Seeds(first: 1, normal: 3, stress: 40))
        {
            await RunAsync(seed, Stress.Pick(normal: 400, stress: 1_500));
        }
    }

    private static async Task RunAsync(int seed, int steps)
    {
        using var dir = new TempDirectory();
        var random = new Random(seed);
        var model = new[] { new Dictionary<int, long>(), new Dictionary<int, long>() };
        var taken = new List<(string Path, Dictionary<int, long>[] Then)>();
        var restores = 0;
        var store = await StellarStore.OpenAsync(dir.Sub("store"), Options);
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var context = string.Create(CultureInfo.InvariantCulture, $"seed {seed}, step {step}");
                var collections = new[] { Open(store, "a"), Open(store, "b") };
                var which = random.Next(2);
                var key = random.Next(60);
                switch (random.Next(100))
                {
                    case < 40:
                        await collections[which].UpsertAsync(new Account(key, step));
                        model[which][key] = step;
                        break;
                    case < 50:
                        await collections[which].DeleteAsync(key);
                        model[which].Remove(key);
                        break;
                    case < 60:
                        await collections[which].WriteAsync(b =>
                        {
                            for (var i = 0; i < 5; i++)
                            {
                                b.Upsert(new Account(key + i, step));
                                model[which][key + i] = step;
                            }
                        });
                        break;
                    case < 72:
                        await store.WriteAsync(tx =>
                        {
                            tx.In(collections[0]).Upsert(new Account(key, step));
                            tx.In(collections[1]).Delete(key);
                        });
                        model[0][key] = step;
                        model[1].Remove(key);
                        break;
                    case < 76:
                        await collections[which].CompactAsync();
                        break;
                    case < 80:
                        await store.DisposeAsync();
                        store = await StellarStore.OpenAsync(dir.Sub("store"), Options);
                        break;
                    case < 90:
                        var info = await store.CheckpointAsync(string.Create(CultureInfo.InvariantCulture, $"s{step}"));
                        taken.Add((info.Path, [new(model[0]), new(model[1])]));
                        break;
                    default:
                        if (taken.Count > 0)
                        {
                            var (path, then) = taken[random.Next(taken.Count)];
                            await CheckAsync(path, then, random.Next(2) == 0 ? dir.Sub(string.Create(CultureInfo.InvariantCulture, $"restored{restores++}")) : null, context);
                        }

                        break;
                }
            }
        }
        finally
        {
            await store.DisposeAsync();
        }

        foreach (var (path, then) in taken)
        {
            await CheckAsync(path, then, restoreInto: null, $"seed {seed}, at the end");
        }

        Assert.NotEmpty(taken);
    }

    /// <summary>Opens the checkpoint read-only, or restores it into <paramref name="restoreInto"/>, and compares it with the model.</summary>
    private static async Task CheckAsync(string checkpoint, Dictionary<int, long>[] then, string? restoreInto, string context)
    {
        StellarStore opened;
        if (restoreInto is null)
        {
            opened = await StellarStore.OpenReadOnlyAsync(checkpoint, Options);
        }
        else
        {
            await StellarStore.RestoreAsync(checkpoint, restoreInto);
            opened = await StellarStore.OpenAsync(restoreInto, Options);
        }

        await using (opened)
        {
            for (var c = 0; c < 2; c++)
            {
                var actual = Open(opened, c == 0 ? "a" : "b").Query().ToDictionary(a => a.Id, a => a.Gold);
                Assert.True(
                    then[c].Count == actual.Count && then[c].All(p => actual.TryGetValue(p.Key, out var v) && v == p.Value),
                    $"{context}: checkpoint {Path.GetFileName(checkpoint)} holds {actual.Count} records in collection {c}, the model {then[c].Count}, or other values");
            }

            if (restoreInto is not null)
            {
                // The restored store is a live one: it takes a write, which the checkpoint never sees.
                await Open(opened, "a").UpsertAsync(new Account(-1, -1));
            }
        }
    }

    private static Collection<int, Account> Open(StellarStore store, string name) => store.GetCollection<int, Account>(name, a => a.Id);
}
