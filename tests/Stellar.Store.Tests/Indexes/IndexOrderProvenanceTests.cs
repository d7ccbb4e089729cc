using Stellar.Store.Indexes;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Indexes;

/// <summary>
/// Orders kept at a clean close that are not this store's orders of these records: a save folder put back with the
/// orders of the close after it, the orders of that earlier close beside the later records, and the orders of another
/// store of the same collection and index names. Each lists every stored key, so only the check against the records
/// tells it apart; the index answers as the test's model of the records says.
/// </summary>
public sealed class IndexOrderProvenanceTests : IDisposable
{
    private const int Records = 300;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Theory]
    [InlineData("rolled-back-folder")]
    [InlineData("older-order")]
    [InlineData("other-store")]
    [InlineData("own")]
    public async Task Reopen_WithAnOrderOfOtherRecords_AnswersAsTheRecordsSay(string case_)
    {
        var early = Path.Combine(_dir.Path, "early");
        var late = Path.Combine(_dir.Path, "late");
        var other = Path.Combine(_dir.Path, "other");
        await Write(early, id => $"n{id:D4}");
        CopyFolder(early, late);
        await Write(late, id => $"m{Records - id:D4}");
        await Write(other, id => $"o{(id * 7) % Records:D4}");

        var (folder, from, names) = case_ switch
        {
            "rolled-back-folder" => (early, late, (Func<int, string>)(id => $"n{id:D4}")),
            "older-order" => (late, early, id => $"m{Records - id:D4}"),
            "other-store" => (early, other, id => $"n{id:D4}"),
            _ => (early, early, id => $"n{id:D4}"),
        };
        foreach (var order in Directory.GetFiles(from, "*.order"))
        {
            if (from != folder)
            {
                File.Copy(order, Path.Combine(folder, Path.GetFileName(order)), overwrite: true);
            }
        }

        await using var store = await StellarStore.OpenAsync(folder);
        var (players, byName, byHandle) = Declare(store);
        await Task.WhenAll(byName.Ready, byHandle.Ready);
        var expected = Enumerable.Range(0, Records).Select(id => (Name: names(id), Id: id)).OrderBy(p => p.Name, StringComparer.Ordinal).Select(p => p.Id).ToList();
        Assert.Equal(expected, byName.All().Select(p => p.Id));
        Assert.Equal(expected, byHandle.All().Select(p => p.Id));
        Assert.Equal(Records, players.Count);

        // Only the store's own order is taken (the control: the cases above put orders that list every key in place).
        Assert.Equal(folder == from, ((SecondaryIndex<string, int, Player>)byName.Index).BuiltFromSavedOrder);
        Assert.Equal(folder == from, ((SecondaryIndex<(string, int), int, Player>)byHandle.Index).BuiltFromSavedOrder);
    }

    private static (Collection<int, Player>, CollectionIndex<string, int, Player>, CollectionIndex<(string, int), int, Player>) Declare(StellarStore store)
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        return (players, players.Index("by-name", p => p.Name, unique: true), players.Index("by-handle", p => (p.Name, p.Level)));
    }

    /// <summary>Gives every record its name from <paramref name="name"/> and closes cleanly, which keeps the orders.</summary>
    private static async Task Write(string folder, Func<int, string> name)
    {
        await using var store = await StellarStore.OpenAsync(folder);
        var (players, byName, byHandle) = Declare(store);
        await Task.WhenAll(byName.Ready, byHandle.Ready);
        await players.WriteAsync(b =>
        {
            for (var id = 0; id < Records; id++)
            {
                b.Upsert(new Player(id, "tmp" + id, 1, 0));
            }
        });
        await players.WriteAsync(b =>
        {
            for (var id = 0; id < Records; id++)
            {
                b.Upsert(new Player(id, name(id), 1, 0));
            }
        });
    }

    private static void CopyFolder(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from))
        {
            if (Path.GetFileName(file) != "LOCK")
            {
                File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
            }
        }
    }
}
