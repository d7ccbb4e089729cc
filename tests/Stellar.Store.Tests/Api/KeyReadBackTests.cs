namespace Stellar.Store.Tests.Api;

/// <summary>
/// A key is stored in its serialized form and read back from it at the next open: a key whose form reads back as
/// another key would lose its record (not found under the key it was written with) and could merge two records into
/// one. Such a key is refused when written, with an <see cref="ArgumentException"/> that says why, and nothing is stored;
/// every other key reads back as itself. A unique index refuses the same of its keys, which a reopen computes from the
/// records as read back.
/// </summary>
public sealed class KeyReadBackTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>Built here, not passed as theory data: the test runner's own serialization of text would replace them.</summary>
    private static readonly string[] Unpaired = ["player-\ud800", "player-\udc00", "\udc00\ud800", "trailing-\ud83d"];

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Write_UnderTextWithAnUnpairedSurrogate_IsRefusedAndStoresNothing(int which)
    {
        var id = Unpaired[which];
        Assert.True(Stellar.Store.Codecs.ReadBack.UnpairedSurrogate(id) >= 0, "the test's text keeps its unpaired surrogate");
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var error = await Assert.ThrowsAsync<ArgumentException>(() => chunks.UpsertAsync(new Chunk { Id = id }));
            Assert.Contains("unpaired UTF-16 surrogate", error.Message);
            await Assert.ThrowsAsync<ArgumentException>(() => chunks.WriteAsync(b => b.Upsert(new Chunk { Id = "fine" }).Upsert(new Chunk { Id = id })));
            await Assert.ThrowsAsync<ArgumentException>(() => chunks.BulkImportAsync([new Chunk { Id = "also fine" }, new Chunk { Id = id }]));
            await Assert.ThrowsAsync<ArgumentException>(() => store.WriteAsync(w => w.In(chunks).Upsert(new Chunk { Id = id })));
            await chunks.UpsertAsync(new Chunk { Id = "after" });
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            Assert.Equal(["after"], chunks.Query(_ => true).Select(c => c.Id));
        }
    }

    [Fact]
    public async Task TextKeys_WithSurrogatePairsAndEveryOtherCharacter_ReadBackAsThemselves()
    {
        string[] ids = ["\ud83d\ude00 smile", "a\u0000b", "\uffff", "\ue000", "é", "", "pair at the end \ud83c\udfae"];
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            foreach (var id in ids)
            {
                await chunks.UpsertAsync(new Chunk { Id = id, Voxels = [1] });
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            Assert.Equal(ids.Length, chunks.Count);
            Assert.All(ids, id => Assert.NotNull(chunks.Get(id)));
        }
    }

    [Fact]
    public async Task Write_UnderALocalDate_IsRefused_AndAUniversalOneReadsBack()
    {
        var day = new DateTime(2026, 11, 27, 0, 0, 0, DateTimeKind.Utc);
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var boards = store.GetCollection<DateTime, DailyBoard>("boards", b => b.Day);
            var error = await Assert.ThrowsAsync<ArgumentException>(() => boards.UpsertAsync(new DailyBoard(day.ToLocalTime(), 1)));
            Assert.Contains("Kind Local", error.Message);
            await boards.UpsertAsync(new DailyBoard(day, 2));
            await boards.UpsertAsync(new DailyBoard(DateTime.SpecifyKind(day.AddDays(1), DateTimeKind.Unspecified), 3));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var boards = store.GetCollection<DateTime, DailyBoard>("boards", b => b.Day);
            Assert.Equal(2, boards.Get(day)!.Entries);
            Assert.Equal(3, boards.Get(day.AddDays(1))!.Entries);
        }
    }

    [Fact]
    public async Task Write_UnderAKeyThatDecodesAsAnother_IsRefused_AndOneThatDecodesAsItselfReadsBack()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            // Text with an unpaired surrogate inside a record key: found by decoding the key's bytes.
            var quests = store.GetCollection<QuestId, Quest>("quests", q => q.Id);
            var error = await Assert.ThrowsAsync<ArgumentException>(() => quests.UpsertAsync(new Quest(new QuestId("north\ud800", 1), 1)));
            Assert.Contains("reads back from its serialized form", error.Message);
            await quests.UpsertAsync(new Quest(new QuestId("north", 1), 7));

            // A key class without value equality: no instance read back is the one written.
            var tickets = store.GetCollection<TicketId, Ticket>("tickets", t => t.Id);
            await Assert.ThrowsAsync<ArgumentException>(() => tickets.UpsertAsync(new Ticket { Id = new TicketId { Number = 1 } }));
            Assert.Equal(0, tickets.Count);
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var quests = store.GetCollection<QuestId, Quest>("quests", q => q.Id);
            Assert.Equal(7, quests.Get(new QuestId("north", 1))!.Step);
            Assert.Equal(1, quests.Count);
        }
    }

    [Fact]
    public async Task UniqueIndex_RefusesKeysThatAReopenWouldReadAsOneAnother_SoItStillBuildsAfterTheReopen()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var byName = players.Index("by-name", p => p.Name, unique: true);
            await byName.Ready;

            // A value is kept as it reads back from its bytes, so text with an unpaired surrogate is indexed as the
            // U+FFFD a reopen reads, and two names that a reopen would read as one clash now.
            await players.InsertAsync(new Player(1, "x\ud800", 1, 1));
            Assert.Equal("x\ufffd", players.Get(1)!.Name);
            await Assert.ThrowsAsync<UniqueConstraintException>(() => players.InsertAsync(new Player(2, "x\udc00", 1, 1)));
            Assert.Equal(1, players.Count);
            await players.InsertAsync(new Player(4, "\ud83d\ude00", 1, 1));

            // A selector that cuts a surrogate pair makes such a key itself: the unique index refuses the record.
            var rivals = store.GetCollection<int, Player>("rivals", p => p.Id);
            var byInitial = rivals.Index("by-initial", p => p.Name[..1], unique: true);
            await byInitial.Ready;
            var error = await Assert.ThrowsAsync<ArgumentException>(() => rivals.InsertAsync(new Player(1, "\ud83d\ude00", 1, 1)));
            Assert.Contains("Unique index 'by-initial'", error.Message);
            Assert.Equal(0, rivals.Count);

            // An index that is not unique keeps any text: a reopen reads it as it reads the record.
            var byMotto = players.Index("by-motto", p => p.Name + "\ud800");
            await byMotto.Ready;
            await players.UpsertAsync(new Player(5, "y", 1, 1));
            Assert.Equal(3, byMotto.All().Count());
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var byName = players.Index("by-name", p => p.Name, unique: true);
            await byName.Ready;
            Assert.Equal([1, 5, 4], byName.All().Select(p => p.Id));
        }
    }
}
