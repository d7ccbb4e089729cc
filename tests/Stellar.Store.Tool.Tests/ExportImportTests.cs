using System.Text.Json;

namespace Stellar.Store.Tool.Tests;

public sealed class ExportImportTests
{
    private const string PlayerType = "Stellar.Store.Tool.Tests.Player";

    [Fact]
    public async Task Export_WritesEveryLiveRecordAsAJsonLine()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 30, encrypted: false);
        await using (var store = await StellarStore.OpenAsync(path, TestStores.Options(encrypted: false)))
        {
            var players = store.GetCollection<int, Player>(TestStores.Players, p => p.Id);
            await players.DeleteAsync(7);
            await players.UpsertAsync(Player.Make(8) with { Level = 99 });
        }

        var run = await ToolRun.RunAsync("export", path, TestStores.Players);

        Assert.Equal(0, run.ExitCode);
        var expected = written.Select(w => w.Player).Where(p => p.Id != 7).Select(p => p.Id == 8 ? p with { Level = 99 } : p).ToDictionary(p => p.Id);
        var exported = run.Data.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(ParseLine).ToList();
        Assert.Equal(expected.Count, exported.Count);
        foreach (var (key, player) in exported)
        {
            Assert.Equal(expected[key], player);
        }
    }

    [Theory]
    [InlineData("a-directory")]
    [InlineData("no-such-directory/players.jsonl")]
    public async Task Export_ToAFileThatCannotBeWritten_ExitsWithBadInputAndOneLine(string output)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);
        Directory.CreateDirectory(temp.Sub("a-directory"));
        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("export", path, TestStores.Players, "-o", Path.Combine(temp.Path, output));

        Assert.Equal(2, run.ExitCode);
        Assert.Contains(Path.Combine(temp.Path, output), run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Export_WhenCancelled_ExitsWithTheCancelCodeAndLeavesNoFile()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 5, encrypted: false);
        var output = temp.Sub("players.jsonl");
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        var run = await ToolRun.RunAsync(null, cancel.Token, "export", path, TestStores.Players, "-o", output);

        Assert.Equal(130, run.ExitCode);
        run.AssertNoStackTrace();
        Assert.False(File.Exists(output));
    }

    [Theory]
    [InlineData("bell\u0007 and unit separator\u001f")]
    [InlineData("line\nbreak, tab\t, \"quotes\" and \\")]
    public async Task ExportThenImport_OfANameWithControlCharacters_GivesTheSamePlayerBack(string name)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var player = new Player { Id = 1, Name = name, Level = 3 };
        await using (var store = await StellarStore.OpenAsync(path))
        {
            await store.GetCollection<int, Player>(TestStores.Players, p => p.Id).UpsertAsync(player);
        }

        var file = temp.Sub("players.jsonl");
        var export = await ToolRun.RunAsync("export", path, TestStores.Players, "-o", file);
        Assert.True(export.ExitCode == 0, export.Output);
        var import = await ToolRun.RunAsync("import", temp.Sub("copy"), TestStores.Players, "-i", file, "--key-type", "System.Int32", "--value-type", PlayerType);
        Assert.True(import.ExitCode == 0, import.Output);

        await using var copy = await StellarStore.OpenAsync(temp.Sub("copy"));
        Assert.Equal(player, copy.GetCollection<int, Player>(TestStores.Players, p => p.Id).Get(1));
    }

    [Fact]
    public async Task Export_OfFloatsThatAreNotFinite_WritesLinesThatAreJsonAndWarns()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path))
        {
            var readings = store.GetCollection<int, double[]>("readings", r => (int)r[0]);
            await readings.UpsertAsync([1, double.NaN, double.PositiveInfinity, double.NegativeInfinity]);
            await readings.UpsertAsync([2, 0.5]);
        }

        var run = await ToolRun.RunAsync("export", path, "readings");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("warning: 1 record(s)", run.Output, StringComparison.Ordinal);
        var values = run.Data.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonDocument.Parse(l).RootElement.GetProperty("value").GetRawText()).ToList();
        Assert.Equal(["[1,\"NaN\",\"Infinity\",\"-Infinity\"]", "[2,0.5]"], values);
    }

    [Fact]
    public async Task Export_OfBinaryValues_WarnsThatAnImportWouldNotGiveTheBytesBack()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path))
        {
            var blobs = store.GetCollection<int, byte[]>("blobs", b => b[0]);
            await blobs.UpsertAsync([1, 0, 250, 255]);
            await blobs.UpsertAsync([2]);
        }

        var run = await ToolRun.RunAsync("export", path, "blobs");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("warning: 2 record(s)", run.Output, StringComparison.Ordinal);
        Assert.Contains("byte[]", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Export_OfValuesJsonCannotCarryBack_WarnsHowMany()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path))
        {
            var logins = store.GetCollection<string, Login>("logins", l => l.Name);
            var tags = store.GetCollection<string, Dictionary<int, string>>("tags", d => d[0]);
            var names = store.GetCollection<string, string>("names", n => n);
            await logins.UpsertAsync(new Login { Name = "ann", At = new DateTime(2030, 1, 2, 3, 4, 5, DateTimeKind.Utc) });
            await tags.UpsertAsync(new Dictionary<int, string> { [0] = "a" });
            await tags.UpsertAsync(new Dictionary<int, string> { [0] = "b" });
            await names.UpsertAsync("c");
        }

        var loginsRun = await ToolRun.RunAsync("export", path, "logins");
        var tagsRun = await ToolRun.RunAsync("export", path, "tags");
        var namesRun = await ToolRun.RunAsync("export", path, "names");

        Assert.Equal(0, tagsRun.ExitCode);
        Assert.Contains("warning: 1 record(s) hold MessagePack extension values", loginsRun.Output, StringComparison.Ordinal);
        Assert.Contains("warning: 2 record(s) hold MessagePack extension values", tagsRun.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("warning", namesRun.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Export_ThenImportIntoANewStore_TheGameReadsEveryRecordBackWithItsTypes()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 40, encrypted: true);
        var file = temp.Sub("players.jsonl");

        var export = await ToolRun.RunWithKeyAsync("export", path, TestStores.Players, "--output", file);
        var import = await ToolRun.RunWithKeyAsync("import", temp.Sub("copy"), TestStores.Players, "--input", file, "--key-type", "System.Int32", "--value-type", PlayerType);

        Assert.Equal(0, export.ExitCode);
        Assert.Equal(0, import.ExitCode);
        Assert.Contains("Imported 40 record(s)", import.Output, StringComparison.Ordinal);
        var read = await TestStores.ReadPlayersAsync(temp.Sub("copy"), encrypted: true);
        Assert.Equal(written.Select(w => w.Player).OrderBy(p => p.Id), read.Values.OrderBy(p => p.Id));
    }

    [Fact]
    public async Task Import_IntoAnExistingTypedCollection_UpsertsAndKeepsItsTypes()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 5, encrypted: false);
        var file = temp.Sub("in.jsonl");
        File.WriteAllLines(file, [Line(3, Player.Make(3) with { Level = 42 }), "", Line(100, Player.Make(100))]);

        var run = await ToolRun.RunAsync("import", path, TestStores.Players, "--input", file);

        Assert.Equal(0, run.ExitCode);
        var read = await TestStores.ReadPlayersAsync(path, encrypted: false);
        Assert.Equal(6, read.Count);
        Assert.Equal(42, read[3].Level);
        Assert.Equal(Player.Make(100), read[100]);
    }

    [Fact]
    public async Task Import_IntoANewUntypedCollection_IsReadableAsObjects()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var file = temp.Sub("in.jsonl");
        File.WriteAllLines(file, ["{\"key\":\"alice\",\"value\":{\"gold\":12,\"items\":[\"sword\",\"shield\"]}}", "{\"key\":\"bob\",\"value\":7}"]);

        var run = await ToolRun.RunAsync("import", path, "misc", "--input", file);

        Assert.Equal(0, run.ExitCode);
        await using var store = await StellarStore.OpenAsync(path);
        var misc = store.GetCollection<object, object>("misc", _ => throw new InvalidOperationException("read only"));
        Assert.Equal(2, misc.Count);
        var alice = Assert.IsAssignableFrom<IDictionary<object, object>>(misc.Get("alice"));
        Assert.Equal(12, Convert.ToInt32(alice["gold"], System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal(7, Convert.ToInt32(misc.Get("bob"), System.Globalization.CultureInfo.InvariantCulture));
    }

    [Theory]
    [InlineData("{\"key\":1,\"value\":{\"Id\":1}}\n{\"key\":2,\"value\":", "line 2: not JSON")]
    [InlineData("{\"key\":1}", "line 1: the \"value\" is missing or null")]
    [InlineData("{\"key\":\"one\",\"value\":{}}", "line 1: the \"key\" does not read as System.Int32")]
    [InlineData("{\"key\":1,\"value\":{},\"level\":3}", "line 1: unknown property \"level\"")]
    [InlineData("[1,2]", "line 1: a line must be an object")]
    [InlineData("{\"key\":1,\"value\":{},\"expiresAt\":\"01/02/2090 12:00\"}", "line 1: \"expiresAt\" must be an ISO 8601 time")]
    public async Task Import_OfABadLine_NamesItAndChangesNothing(string input, string message)
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 5, encrypted: false);
        var file = temp.Sub("bad.jsonl");
        File.WriteAllText(file, input);
        var before = TestStores.Snapshot(path);

        var run = await ToolRun.RunAsync("import", path, TestStores.Players, "--input", file);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains(message, run.Output, StringComparison.Ordinal);
        Assert.Contains("Nothing was imported.", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Import_OfAGuidKeyWrittenInUpperCase_StoresTheKeyAsTheGameDoes_SoADeleteStaysDeletedAfterACompaction()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var id = Guid.Parse("6f9619ff-8b86-d011-b42d-00c04fc964ff");
        await using (var store = await StellarStore.OpenAsync(path))
        {
            await Sessions(store).UpsertAsync($"{id}|old");
        }

        // The same GUID as another system or a hand edit writes it: JSON does not say how a GUID is spelled.
        var file = temp.Sub("sessions.jsonl");
        await File.WriteAllTextAsync(file, $"{{\"key\":\"{id.ToString().ToUpperInvariant()}\",\"value\":\"{id}|new\"}}\n");
        var run = await ToolRun.RunAsync("import", path, "sessions", "-i", file);
        Assert.True(run.ExitCode == 0, run.Output);

        await using (var store = await StellarStore.OpenAsync(path))
        {
            var sessions = Sessions(store);
            Assert.Equal(1, sessions.Count);
            Assert.Equal($"{id}|new", sessions.Get(id));
            Assert.True(await sessions.DeleteAsync(id));
        }

        var compact = await ToolRun.RunAsync("compact", path);
        Assert.True(compact.ExitCode == 0, compact.Output);
        await using (var store = await StellarStore.OpenAsync(path))
        {
            Assert.Equal(0, Sessions(store).Count);
        }

        static Collection<Guid, string> Sessions(StellarStore store) => store.GetCollection<Guid, string>("sessions", v => Guid.Parse(v[..36]));
    }

    [Fact]
    public async Task Import_OfExpiryTimesInEachIso8601Form_KeepsTheInstantAndTakesATimeWithoutOffsetAsUtc()
    {
        using var temp = new TempDirectory();
        var file = temp.Sub("sessions.jsonl");
        string[] times = ["2090-01-31T12:00:00Z", "2090-01-31T12:00:00", "2090-01-31T14:00:00+02:00", "2090-01-31T12:00:00.0000000+00:00"];
        await File.WriteAllLinesAsync(file, times.Select((t, i) => $"{{\"key\":{i},\"value\":{i},\"expiresAt\":\"{t}\"}}"));

        var import = await ToolRun.RunAsync("import", temp.Sub("store"), "sessions", "-i", file);
        Assert.True(import.ExitCode == 0, import.Output);
        var export = await ToolRun.RunAsync("export", temp.Sub("store"), "sessions");

        var expiries = export.Data.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonDocument.Parse(l).RootElement.GetProperty("expiresAt").GetString());
        Assert.All(expiries, e => Assert.Equal("2090-01-31T12:00:00.0000000+00:00", e));
        Assert.Equal(times.Length, expiries.Count());
    }

    [Fact]
    public async Task Import_IntoAPathThatIsAFile_ExitsWithBadInputAndKeepsTheFile()
    {
        using var temp = new TempDirectory();
        var input = temp.Sub("players.jsonl");
        await File.WriteAllTextAsync(input, "{\"key\":1,\"value\":2}\n");

        var run = await ToolRun.RunAsync("import", input, "things", "-i", input);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("is a file", run.Output, StringComparison.Ordinal);
        run.AssertNoStackTrace();
        Assert.Equal("{\"key\":1,\"value\":2}\n", await File.ReadAllTextAsync(input));
    }

    [Fact]
    public async Task Import_WhenCancelled_ExitsWithTheCancelCodeAndTheStoreStillOpens()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 5, encrypted: false);
        var file = temp.Sub("in.jsonl");
        File.WriteAllLines(file, Enumerable.Range(1000, 2000).Select(i => Line(i, Player.Make(i))));
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        var run = await ToolRun.RunAsync(null, cancel.Token, "import", path, TestStores.Players, "--input", file);

        Assert.Equal(130, run.ExitCode);
        run.AssertNoStackTrace();
        var read = await TestStores.ReadPlayersAsync(path, encrypted: false);
        Assert.Equal(Enumerable.Range(1, 5), read.Keys.Order());
    }

    [Fact]
    public async Task ImportAndExport_OfADamagedStore_AreRefusedAndChangeNothing()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        var written = await TestStores.WritePlayersAsync(path, 6, encrypted: false);
        TestStores.Damage(written[2]);
        var file = temp.Sub("in.jsonl");
        File.WriteAllLines(file, [Line(9, Player.Make(9))]);
        var before = TestStores.Snapshot(path);

        var import = await ToolRun.RunAsync("import", path, TestStores.Players, "--input", file);
        var export = await ToolRun.RunAsync("export", path, TestStores.Players);

        Assert.Equal(1, import.ExitCode);
        Assert.Contains($"Corrupt block in '{written[2].ShardFile}' at offset {written[2].Start}", import.Output, StringComparison.Ordinal);
        Assert.Equal(1, export.ExitCode);
        Assert.Contains($"'{written[2].ShardFile}' at offset {written[2].Start}", export.Output, StringComparison.Ordinal);
        Assert.Empty(export.Data);
        import.AssertNoStackTrace();
        Assert.Equal(before, TestStores.Snapshot(path));
    }

    [Fact]
    public async Task Import_WithATypeOtherThanTheCollections_IsRefused()
    {
        using var temp = new TempDirectory();
        var path = temp.Sub("store");
        await TestStores.WritePlayersAsync(path, 2, encrypted: false);
        var file = temp.Sub("in.jsonl");
        File.WriteAllLines(file, [Line(3, Player.Make(3))]);

        var run = await ToolRun.RunAsync("import", path, TestStores.Players, "--input", file, "--key-type", "System.String");

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("holds System.Int32 -> Stellar.Store.Tool.Tests.Player", run.Output, StringComparison.Ordinal);
    }

    private static string Line(int key, Player player) => JsonSerializer.Serialize(new { key, value = player });

    private static (int Key, Player Player) ParseLine(string line)
    {
        using var json = JsonDocument.Parse(line);
        return (json.RootElement.GetProperty("key").GetInt32(), json.RootElement.GetProperty("value").Deserialize<Player>()!);
    }
}
