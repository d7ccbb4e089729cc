namespace Stellar.Store.Tests.Api;

public sealed class StoreApiTests : IDisposable
{
    private static readonly byte[] Key = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    public static TheoryData<Durability, Compression, bool> Modes()
    {
        var data = new TheoryData<Durability, Compression, bool>();
        foreach (var durability in new[] { Durability.Buffered, Durability.WriteThrough, Durability.Fsync })
        {
            foreach (var compression in new[] { Compression.None, Compression.Lz4 })
            {
                foreach (var encrypted in new[] { false, true })
                {
                    data.Add(durability, compression, encrypted);
                }
            }
        }

        return data;
    }

    private static StoreOptions Options(Durability durability, Compression compression, bool encrypted) => new()
    {
        Durability = durability,
        Compression = compression,
        EncryptionKey = encrypted ? Key : null,
    };

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task WholeApi_AcrossReopen_KeepsEveryAcknowledgedWrite(Durability durability, Compression compression, bool encrypted)
    {
        var options = Options(durability, compression, encrypted);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < 100; i++)
            {
                await players.InsertAsync(new Player(i, $"p{i}", i % 20, 100));
            }

            await Assert.ThrowsAsync<DuplicateKeyException>(() => players.InsertAsync(new Player(5, "dup", 1, 1)));
            await Assert.ThrowsAsync<KeyNotFoundException>(() => players.UpdateAsync(new Player(1000, "none", 1, 1)));
            await players.UpdateAsync(new Player(1, "renamed", 99, 5));
            await players.UpsertAsync(new Player(200, "new", 3, 3));
            Assert.True(await players.DeleteAsync(2));
            Assert.False(await players.DeleteAsync(2));
            await players.WriteAsync(b => b.Upsert(new Player(300, "a", 1, 1)).Delete(3).Update(new Player(4, "four", 4, 4)));

            Assert.Equal(100L, players.Count);
            Assert.Equal("renamed", players.Get(1)!.Name);
            Assert.Null(players.Get(2));
            Assert.Equal(5, players.Query(p => p.Level == 10).Count());
            Assert.Equal(players.Count, players.Query().LongCount());
            if (durability == Durability.Buffered)
            {
                await store.FlushAsync();
            }
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal(100L, players.Count);
            Assert.Equal(new Player(1, "renamed", 99, 5), players.Get(1));
            Assert.Null(players.Get(2));
            Assert.Null(players.Get(3));
            Assert.Equal("four", players.Get(4)!.Name);
            Assert.True(players.TryGet(300, out var p300));
            Assert.Equal("a", p300.Name);
            Assert.Equal(0L, store.Recovery.TruncatedBytes);
        }
    }

    [Fact]
    public async Task WriteAsync_WhenOneWriteIsRejected_StoresNone()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "one", 1, 10));

        await Assert.ThrowsAsync<DuplicateKeyException>(() =>
            players.WriteAsync(b => b.Upsert(new Player(2, "two", 1, 10)).Delete(1).Insert(new Player(1, "again", 1, 10)).Insert(new Player(1, "dup", 1, 10))));

        Assert.Null(players.Get(2));
        Assert.Equal("one", players.Get(1)!.Name);
        Assert.Equal(1L, players.Count);
    }

    [Fact]
    public async Task Snapshot_WhileWritesContinue_StaysAtItsVersion()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "before", 1, 10));
        using var view = players.Snapshot();
        await players.UpsertAsync(new Player(1, "after", 2, 20));
        await players.InsertAsync(new Player(2, "two", 1, 10));
        await players.DeleteAsync(1);

        Assert.Equal("before", view.Get(1)!.Name);
        Assert.Null(view.Get(2));
        Assert.Equal(1L, view.Count);
        Assert.Single(view.Query());
        Assert.Null(players.Get(1));
        Assert.Equal(1L, players.Count);
    }

    [Fact]
    public async Task GetCollection_WithOtherTypes_FailsClearly()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Throws<InvalidOperationException>(() => store.GetCollection<string, Chunk>("players", c => c.Id));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var e = Assert.Throws<InvalidOperationException>(() => store.GetCollection<Guid, Player>("players", _ => Guid.Empty));
            Assert.Contains("players", e.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("../x")]
    [InlineData("con")]
    [InlineData("")]
    [InlineData("a/b")]
    [InlineData("..")]
    public async Task GetCollection_WithInvalidName_ThrowsArgumentExceptionAndStoreStaysUsable(string name)
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var e = Assert.ThrowsAny<ArgumentException>(() => store.GetCollection<int, Player>(name, p => p.Id));
        Assert.Contains("collection name", e.Message, StringComparison.Ordinal);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "ok", 1, 1));
        Assert.NotNull(players.Get(1));
    }

    [Fact]
    public async Task GetCollection_WithTooLongName_Throws()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        Assert.ThrowsAny<ArgumentException>(() => store.GetCollection<int, Player>(new string('a', 1000), p => p.Id));
    }

    [Fact]
    public async Task OpenAsync_WhenAlreadyOpen_ThrowsStoreLocked()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        await Assert.ThrowsAsync<StoreLockedException>(() => StellarStore.OpenAsync(_dir.Path));
    }

    [Fact]
    public async Task OpenAsync_WithWrongOrMissingKey_ThrowsWrongKeyAndChangesNothing()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = Key }))
        {
            await store.GetCollection<int, Player>("players", p => p.Id).InsertAsync(new Player(1, "secret", 1, 1));
        }

        var before = Directory.GetFiles(_dir.Path).Where(f => !f.EndsWith("LOCK", StringComparison.Ordinal)).ToDictionary(f => f, File.ReadAllBytes);
        var wrong = Key.Select(b => (byte)(b ^ 0xFF)).ToArray();
        await Assert.ThrowsAsync<WrongKeyException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = wrong }));
        await Assert.ThrowsAsync<WrongKeyException>(() => StellarStore.OpenAsync(_dir.Path));
        foreach (var (file, bytes) in before)
        {
            Assert.Equal(bytes, File.ReadAllBytes(file));
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = Key });
        Assert.Equal("secret", reopened.GetCollection<int, Player>("players", p => p.Id).Get(1)!.Name);
    }

    [Fact]
    public async Task OpenAsync_PlainStoreWithKey_ThrowsWrongKey()
    {
        await using (await StellarStore.OpenAsync(_dir.Path))
        {
        }

        await Assert.ThrowsAsync<WrongKeyException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { EncryptionKey = Key }));
    }

    [Fact]
    public async Task OpenAsync_WithBadOption_NamesIt()
    {
        var e = await Assert.ThrowsAnyAsync<ArgumentException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { MaxShardBytes = 10 }));
        Assert.Equal("MaxShardBytes", e.ParamName);
    }

    [Fact]
    public async Task Writes_AfterDispose_ThrowObjectDisposed()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await store.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.InsertAsync(new Player(1, "late", 1, 1)));
        Assert.Throws<ObjectDisposedException>(() => store.GetCollection<int, Player>("players", p => p.Id));
    }

    [Fact]
    public async Task Reads_AfterDispose_ThrowObjectDisposedForSmallAndLargeValuesAlike()
    {
        var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { LargeValueThreshold = 1024 });
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "small", 1, 1));
        await players.InsertAsync(new Player(2, new string('l', 4096), 1, 1), TimeSpan.FromDays(1));
        var byName = players.Index("by-name", p => p.Name);
        await byName.Ready;
        await store.DisposeAsync();

        // A value kept in memory and one read from its shard fail alike: neither is read from a closed store.
        Assert.Throws<ObjectDisposedException>(() => players.Get(1));
        Assert.Throws<ObjectDisposedException>(() => players.Get(2));
        Assert.Throws<ObjectDisposedException>(() => players.TryGet(1, out _));
        Assert.Throws<ObjectDisposedException>(() => players.Count);
        Assert.Throws<ObjectDisposedException>(() => players.ExpiresAt(2));
        Assert.Throws<ObjectDisposedException>(() => players.Query().ToList());
        Assert.Throws<ObjectDisposedException>(() => byName.Top(1));
    }

    [Fact]
    public async Task Writes_ManyShards_RoundTripAcrossReopen()
    {
        var options = new StoreOptions { MaxShardBytes = 64 * 1024, Compression = Compression.Lz4 };
        var written = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var random = new Random(7);
            for (var i = 0; i < 40; i++)
            {
                var voxels = new byte[12_000];
                random.NextBytes(voxels);
                voxels[11] = (byte)i;
                await chunks.UpsertAsync(new Chunk { Id = $"c{i}", Voxels = voxels });
                written[$"c{i}"] = (byte[])voxels.Clone();
            }
        }

        Assert.True(Directory.GetFiles(_dir.Path, "*.shard").Length > 3);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            Assert.Equal(40L, chunks.Count);
            Assert.Equal(13, chunks.Get("c13")!.Voxels[11]);
            Assert.All(written, w => Assert.Equal(w.Value, chunks.Get(w.Key)!.Voxels));
            Assert.Equal(written.Keys.Order(StringComparer.Ordinal), chunks.Query().Select(c => c.Id).Order(StringComparer.Ordinal));
        }
    }

    [Fact]
    public async Task GetCollection_WithUnserializableValue_NamesTheType()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var e = Assert.ThrowsAny<ArgumentException>(() => store.GetCollection<int, IDisposable>("things", _ => 1));
        Assert.Contains(nameof(IDisposable), e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BulkImport_WithDuplicates_LastWinsAndReportsProgress()
    {
        var reports = new List<BulkImportProgress>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var source = Enumerable.Range(0, 20_000).Select(i => new Player(i % 15_000, $"p{i}", i % 50, i));
            await players.BulkImportAsync(source, new SynchronousProgress(reports));
            Assert.Equal(15_000L, players.Count);
        }

        Assert.Equal(20_000L, reports[^1].Records);
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal(15_000L, players.Count);
            Assert.Equal("p15001", players.Get(1)!.Name);
        }
    }

    [Fact]
    public async Task CopyOnRead_ReturnsPrivateCopies()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { CopyOnRead = true });
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        await chunks.InsertAsync(new Chunk { Id = "a", Voxels = new byte[] { 1, 2, 3 } });
        chunks.Get("a")!.Voxels[0] = 99;
        Assert.Equal(1, chunks.Get("a")!.Voxels[0]);
    }

    private sealed class SynchronousProgress(List<BulkImportProgress> reports) : IProgress<BulkImportProgress>
    {
        public void Report(BulkImportProgress value) => reports.Add(value);
    }
}
