using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>fixture-units &lt;dir&gt;</c>: writes the <see cref="UnitsFixture"/> history into a new store at <c>dir</c>, one
/// open and clean close per session. Run once by a build of an older format to make the units fixture store that later
/// builds must keep opening (see the fixtures' README in the test project).
/// </summary>
internal static class FixtureUnitsVerb
{
    public static int Run(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: fixture-units <new store directory>");
            return ExitCodes.Usage;
        }

        if (Directory.Exists(args[0]) && Directory.EnumerateFileSystemEntries(args[0]).Any())
        {
            Console.Error.WriteLine($"'{args[0]}' is not empty; a fixture is written into a new directory.");
            return ExitCodes.Usage;
        }

        // The oracle checks that no write of the history would be rejected (or, as a delete of a missing key, do
        // nothing): a fixture that differs from its oracle must fail here, not in every later build's test.
        _ = UnitsFixture.Expected();
        for (var session = 0; session < UnitsFixture.Sessions; session++)
        {
            WriteSessionAsync(args[0], session).GetAwaiter().GetResult();
        }

        return ExitCodes.Success;
    }

    private static async Task WriteSessionAsync(string path, int session)
    {
        await using var store = await StellarStore.OpenAsync(path, UnitsFixture.Options());
        var collections = UnitsFixture.CollectionNames.Select(n => store.GetCollection<int, WorkloadItem>(n, i => i.Id)).ToArray();
        foreach (var step in UnitsFixture.Session(session))
        {
            var touched = step.Select(w => w.Collection).Distinct().Count();
            if (touched > 1)
            {
                await store.WriteAsync(tx =>
                {
                    foreach (var (collection, write) in step)
                    {
                        Add(tx.In(collections[collection]), write);
                    }
                });
            }
            else if (step.Count > 1)
            {
                await collections[step[0].Collection].WriteAsync(batch =>
                {
                    foreach (var (_, write) in step)
                    {
                        Add(batch, write);
                    }
                });
            }
            else
            {
                await WriteAloneAsync(collections[step[0].Collection], step[0].Write);
            }
        }
    }

    private static void Add(WriteBatch<int, WorkloadItem> batch, WorkloadWrite write)
    {
        _ = write.Kind switch
        {
            WorkloadWriteKind.Insert => batch.Insert(write.Value!),
            WorkloadWriteKind.Update => batch.Update(write.Value!),
            WorkloadWriteKind.Upsert => batch.Upsert(write.Value!),
            WorkloadWriteKind.Delete => batch.Delete(write.Key),
            _ => throw new ArgumentOutOfRangeException(nameof(write), write.Kind, "unknown write kind"),
        };
    }

    private static async Task WriteAloneAsync(Collection<int, WorkloadItem> collection, WorkloadWrite write)
    {
        switch (write.Kind)
        {
            case WorkloadWriteKind.Insert:
                await collection.InsertAsync(write.Value!);
                break;
            case WorkloadWriteKind.Update:
                await collection.UpdateAsync(write.Value!);
                break;
            case WorkloadWriteKind.Upsert:
                await collection.UpsertAsync(write.Value!);
                break;
            case WorkloadWriteKind.Delete:
                if (!await collection.DeleteAsync(write.Key))
                {
                    throw new InvalidOperationException($"Key {write.Key} of '{collection.Name}' was not there to delete.");
                }

                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(write), write.Kind, "unknown write kind");
        }
    }
}
