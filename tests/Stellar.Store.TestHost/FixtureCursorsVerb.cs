using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>fixture-cursors &lt;dir&gt;</c>: writes the <see cref="CursorsFixture"/> history into a new store at <c>dir</c>:
/// the items, then each cursor's acknowledgement of its last item's position. Run once by a build whose cursor records
/// hold only a position, to make the fixture store that later builds must keep opening (see the fixtures' README in the
/// test project).
/// </summary>
internal static class FixtureCursorsVerb
{
    public static int Run(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: fixture-cursors <new store directory>");
            return ExitCodes.Usage;
        }

        if (Directory.Exists(args[0]) && Directory.EnumerateFileSystemEntries(args[0]).Any())
        {
            Console.Error.WriteLine($"'{args[0]}' is not empty; a fixture is written into a new directory.");
            return ExitCodes.Usage;
        }

        WriteAsync(args[0]).GetAwaiter().GetResult();
        return ExitCodes.Success;
    }

    private static async Task WriteAsync(string path)
    {
        await using var store = await StellarStore.OpenAsync(path, CursorsFixture.Options());
        var items = store.GetCollection<int, WorkloadItem>(CursorsFixture.CollectionName, i => i.Id);
        for (var id = 1; id <= CursorsFixture.Items; id++)
        {
            await items.UpsertAsync(CursorsFixture.Item(id));
        }

        using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        var positions = new Dictionary<int, ChangePosition>();
        await foreach (var change in items.Changes(ChangePosition.Start, guard.Token))
        {
            positions[change.Key] = change.Position;
            if (change.Key == CursorsFixture.Items)
            {
                break;
            }
        }

        foreach (var (cursor, lastItem) in CursorsFixture.Cursors)
        {
            await items.Feed(cursor).AcknowledgeAsync(positions[lastItem]);
        }
    }
}
