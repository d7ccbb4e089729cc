using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>fixture &lt;dir&gt; plain|encrypted</c>: writes the <see cref="FormatFixture"/> history into a new store at
/// <c>dir</c> and closes it. Run once by a build of an older format to make the fixture stores that later builds
/// must keep opening (see the fixtures' README in the test project).
/// </summary>
internal static class FixtureVerb
{
    public static int Run(string[] args)
    {
        if (args.Length != 2 || args[1] is not ("plain" or "encrypted"))
        {
            Console.Error.WriteLine("usage: fixture <new store directory> plain|encrypted");
            return ExitCodes.Usage;
        }

        if (Directory.Exists(args[0]) && Directory.EnumerateFileSystemEntries(args[0]).Any())
        {
            Console.Error.WriteLine($"'{args[0]}' is not empty; a fixture is written into a new directory.");
            return ExitCodes.Usage;
        }

        WriteAsync(args[0], args[1] == "encrypted").GetAwaiter().GetResult();
        return ExitCodes.Success;
    }

    private static async Task WriteAsync(string path, bool encrypted)
    {
        await using var store = await StellarStore.OpenAsync(path, FormatFixture.Options(encrypted));
        var items = store.GetCollection<int, WorkloadItem>(FormatFixture.CollectionName, i => i.Id);
        foreach (var (delete, item) in FormatFixture.BeforeCompaction())
        {
            if (delete)
            {
                await items.DeleteAsync(item.Id);
            }
            else
            {
                await items.UpsertAsync(item);
            }
        }

        await items.CompactAsync();
        foreach (var batch in FormatFixture.AfterCompaction())
        {
            await items.WriteAsync(b =>
            {
                foreach (var (delete, item) in batch)
                {
                    if (delete)
                    {
                        b.Delete(item.Id);
                    }
                    else
                    {
                        b.Upsert(item);
                    }
                }
            });
        }
    }
}
