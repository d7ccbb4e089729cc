using Stellar.Store.Format;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Expiry;

/// <summary>What a user relies on when records expire: removal that survives a reopen, the writer's own removal, the space given back, and clear errors.</summary>
public sealed class ExpiryTests : IDisposable
{
    private readonly TempDirectory _dir = new();
    private readonly TestClock _clock = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task RemovedExpiredRecord_StaysGoneAfterAReopenWithTheClockSetBack()
    {
        var options = Options(Timeout.InfiniteTimeSpan);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            await sessions.UpsertAsync(new Player(1, "session", 1, 1), TimeSpan.FromMinutes(5));
            await sessions.UpsertAsync(new Player(2, "forever", 1, 1));
            Assert.Equal(_clock.GetUtcNow() + TimeSpan.FromMinutes(5), sessions.ExpiresAt(1));
            Assert.Null(sessions.ExpiresAt(2));

            _clock.Advance(TimeSpan.FromMinutes(6));
            Assert.Null(sessions.Get(1));
            Assert.Null(sessions.ExpiresAt(1));
            Assert.Equal(1, sessions.Count);
            Assert.Equal(1, await sessions.RemoveExpiredAsync());
        }

        // A player sets the system time back: the delete record was written, so the session does not come back.
        _clock.SetBack(TimeSpan.FromMinutes(10));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            Assert.Null(sessions.Get(1));
            Assert.Equal(new Player(2, "forever", 1, 1), sessions.Get(2));
            Assert.Equal(1, sessions.Count);
        }
    }

    [Fact]
    public async Task ExpiredRecord_StaysGoneFromEveryReadAndWrite_WhenTheClockIsSetBackInARunningStore()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        var byName = sessions.Index("by-name", p => p.Name);
        await byName.Ready;
        await sessions.UpsertAsync(new Player(1, "session", 1, 1), TimeSpan.FromMinutes(1));
        await sessions.UpsertAsync(new Player(2, "forever", 1, 1));
        await sessions.UpsertAsync(new Player(3, "session", 1, 1), TimeSpan.FromMinutes(1));
        var ended = _clock.GetUtcNow() + TimeSpan.FromMinutes(1);
        _clock.Advance(TimeSpan.FromMinutes(2));
        Assert.Null(sessions.Get(1));

        // A player sets the system time back before the sessions' end, with nothing removed yet.
        _clock.SetBack(TimeSpan.FromMinutes(2));
        Assert.Null(sessions.Get(1));
        Assert.Null(sessions.Get(3));
        Assert.Null(sessions.ExpiresAt(1));
        Assert.Equal(1, sessions.Count);
        Assert.Equal([2], sessions.Query().Select(p => p.Id).ToList());
        Assert.Empty(byName.Equal("session"));
        using (var snapshot = sessions.Snapshot())
        {
            Assert.Null(snapshot.Get(3));
            Assert.Equal(1, snapshot.Count);
        }

        using (var cut = store.Snapshot())
        {
            Assert.Equal(1, cut.Of(sessions).Count);
        }

        // The writer agrees with the readers: the key is free, its update fails, and an end before then is in the past.
        await Assert.ThrowsAsync<KeyNotFoundException>(() => sessions.UpdateAsync(new Player(3, "session", 1, 1)));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => sessions.UpsertAsync(new Player(4, "late", 1, 1), ended));
        await sessions.InsertAsync(new Player(1, "again", 1, 1));
        Assert.Equal(2, sessions.Count);
    }

    [Fact]
    public async Task RejectedBatch_StoresNothing_AndTheDeletesOfExpiredRecordsCommitWithTheNextWrite()
    {
        var options = Options(Timeout.InfiniteTimeSpan);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            await sessions.UpsertAsync(new Player(1, "session", 1, 1), TimeSpan.FromMinutes(1));
            _clock.Advance(TimeSpan.FromMinutes(2));
            var stored = sessions.Statistics.StoredBytes;

            await Assert.ThrowsAsync<KeyNotFoundException>(() => sessions.WriteAsync(b => b.Upsert(new Player(2, "p", 1, 1)).Update(new Player(3, "p", 1, 1))));
            Assert.Equal(stored, sessions.Statistics.StoredBytes);

            // The rejected group's delete of the expired session was staged, not stored: the next write commits it.
            await sessions.UpsertAsync(new Player(2, "p", 1, 1));
            Assert.Equal(0, await sessions.RemoveExpiredAsync());
        }

        _clock.SetBack(TimeSpan.FromMinutes(5));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            Assert.Null(sessions.Get(1));
            Assert.Equal(1, sessions.Count);
        }
    }

    [Theory]
    [InlineData(Compression.None, false)]
    [InlineData(Compression.Lz4, false)]
    [InlineData(Compression.Lz4, true)]
    public async Task ExpiryTime_SurvivesAReopenCompressedAndEncrypted(Compression compression, bool encrypted)
    {
        var options = new StoreOptions
        {
            Clock = _clock,
            ExpirySweepInterval = Timeout.InfiniteTimeSpan,
            Compression = compression,
            EncryptionKey = encrypted ? Enumerable.Range(1, 32).Select(i => (byte)i).ToArray() : null,
            LargeValueThreshold = 1024,
        };
        var ends = _clock.GetUtcNow() + TimeSpan.FromMinutes(10);
        var large = new Player(3, new string('l', 5_000), 1, 1);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            await sessions.UpsertAsync(new Player(1, new string('s', 200), 1, 1), TimeSpan.FromMinutes(10));
            await sessions.UpsertAsync(new Player(2, "forever", 1, 1));
            await sessions.UpsertAsync(large, TimeSpan.FromMinutes(10));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            Assert.Equal(ends, sessions.ExpiresAt(1));
            Assert.Equal(ends, sessions.ExpiresAt(3));
            Assert.Equal(large, sessions.Get(3));
            Assert.Null(sessions.ExpiresAt(2));
            Assert.Equal(3, sessions.Count);

            _clock.Advance(TimeSpan.FromMinutes(11));
            Assert.Null(sessions.Get(1));
            Assert.Null(sessions.Get(3));
            Assert.Equal(1, sessions.Count);
        }
    }

    [Fact]
    public async Task IdleCollection_WriterRemovesExpiredRecordsOnItsOwn()
    {
        var options = Options(TimeSpan.FromMilliseconds(20));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
            for (var id = 0; id < 10; id++)
            {
                await sessions.UpsertAsync(new Player(id, "s", 1, 1), TimeSpan.FromSeconds(30));
            }

            _clock.Advance(TimeSpan.FromMinutes(1));
            Assert.Equal(0, sessions.Count);

            // No write and no call: the background removal alone. Waits for it (a liveness bound, not a timing claim).
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (sessions.Engine.Map.Expiry.Earliest() is not null && DateTime.UtcNow < deadline)
            {
                await Task.Delay(20);
            }

            Assert.Null(sessions.Engine.Map.Expiry.Earliest());
            Assert.Equal(0, await sessions.RemoveExpiredAsync());
        }

        _clock.SetBack(TimeSpan.FromMinutes(5));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Equal(0, store.GetCollection<int, Player>("sessions", p => p.Id).Count);
        }
    }

    [Fact]
    public async Task WriteAfterExpiry_RemovesExpiredRecordsFirst_SoAUniqueKeyIsFreeAndAnInsertSucceeds()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
        var byItem = auctions.Index("by-item", p => p.Name, unique: true);
        await byItem.Ready;
        await auctions.InsertAsync(new Player(1, "sword", 1, 100), TimeSpan.FromHours(1));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => auctions.InsertAsync(new Player(2, "sword", 1, 120)));

        _clock.Advance(TimeSpan.FromHours(2));
        Assert.Empty(byItem.Equal("sword"));
        await auctions.InsertAsync(new Player(2, "sword", 1, 120));
        await auctions.InsertAsync(new Player(1, "shield", 1, 50));
        Assert.Equal(new[] { new Player(2, "sword", 1, 120) }, byItem.Equal("sword"));
        Assert.Equal(0, await auctions.RemoveExpiredAsync());
        await Assert.ThrowsAsync<KeyNotFoundException>(() => auctions.UpdateAsync(new Player(3, "bow", 1, 1)));
    }

    [Fact]
    public async Task UniqueIndexDeclaredAfterAHolderExpired_BuildsAndTheKeyIsFree()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
        await auctions.UpsertAsync(new Player(1, "sword", 1, 100), TimeSpan.FromHours(1));
        await auctions.UpsertAsync(new Player(2, "sword", 1, 120));
        _clock.Advance(TimeSpan.FromHours(2));

        // The expired record is still stored (nothing removed it), but no reader sees it: it holds no unique key.
        var byItem = auctions.Index("by-item", p => p.Name, unique: true);
        await byItem.Ready;
        Assert.Equal(new[] { new Player(2, "sword", 1, 120) }, byItem.Equal("sword"));
        await Assert.ThrowsAsync<UniqueConstraintException>(() => auctions.InsertAsync(new Player(3, "sword", 1, 1)));
        await auctions.InsertAsync(new Player(1, "shield", 1, 50));
        Assert.Equal(new[] { new Player(1, "shield", 1, 50) }, byItem.Equal("shield"));
    }

    [Fact]
    public async Task ExpiredRecords_AreDroppedByCompactionOnceRemoved()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var chunks = store.GetCollection<int, Player>("chunks", p => p.Id);
        await chunks.WriteAsync(batch =>
        {
            for (var id = 0; id < 200; id++)
            {
                batch.Upsert(new Player(id, new string('c', 100), 1, 1), TimeSpan.FromMinutes(1));
            }
        });
        var before = chunks.Statistics;
        Assert.True(before.LiveBytes > 20_000, $"live bytes {before.LiveBytes}");

        _clock.Advance(TimeSpan.FromMinutes(2));
        Assert.Equal(200, await chunks.RemoveExpiredAsync());
        await chunks.CompactAsync();

        var after = chunks.Statistics;
        Assert.Equal(0, after.Count);
        Assert.Equal(0, after.LiveBytes);
        Assert.True(after.StoredBytes < before.StoredBytes / 10, $"stored bytes {after.StoredBytes} of {before.StoredBytes} before");
    }

    [Fact]
    public async Task BlocksHoldingAnExpiringRecord_AreFlaggedSoThatABuildWithoutExpiryRefusesThem()
    {
        var storage = new MemoryStorage();
        await using (var store = await StellarStore.OpenAsync(storage, Options(Timeout.InfiniteTimeSpan)))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.UpsertAsync(new Player(1, "plain", 1, 1));
            await store.FlushAsync();
            await players.UpsertAsync(new Player(2, "expiring", 1, 1), TimeSpan.FromMinutes(1));
        }

        var blocks = ShardFiles.Blocks(storage).Where(b => (b.Header.Flags & BlockFlags.UnitPart) == 0 && b.Header.RecordCount > 0).ToList();
        Assert.Contains(blocks, b => (b.Header.Flags & BlockFlags.Expiring) != 0);
        Assert.Contains(blocks, b => (b.Header.Flags & BlockFlags.Expiring) == 0);
    }

    [Fact]
    public async Task WriteWithAnExpiryTime_KeepsTheRecordsEnd_WhereAWriteWithoutOneWouldMakeItLastForever()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var auctions = store.GetCollection<int, Player>("auctions", p => p.Id);
        var ends = _clock.GetUtcNow() + TimeSpan.FromMinutes(30);
        await auctions.InsertAsync(new Player(1, "sword", 1, 100), ends);
        await auctions.WriteAsync(b => b.Insert(new Player(2, "bow", 1, 10), ends).Upsert(new Player(3, "axe", 1, 5), ends));

        // A bid changes the price and keeps the end; a write without an expiry keeps the record for good.
        _clock.Advance(TimeSpan.FromMinutes(10));
        await auctions.UpsertAsync(new Player(1, "sword", 1, 150), ends);
        await auctions.WriteAsync(b => b.Upsert(new Player(2, "bow", 1, 20), ends));
        await auctions.UpsertAsync(new Player(3, "axe", 1, 6));
        Assert.Equal(ends, auctions.ExpiresAt(1));
        Assert.Equal(ends, auctions.ExpiresAt(2));
        Assert.Null(auctions.ExpiresAt(3));

        _clock.Advance(TimeSpan.FromMinutes(21));
        Assert.Null(auctions.Get(1));
        Assert.Null(auctions.Get(2));
        Assert.Equal(new Player(3, "axe", 1, 6), auctions.Get(3));

        var past = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => auctions.UpsertAsync(new Player(4, "past", 1, 1), _clock.GetUtcNow()));
        Assert.Equal("expiresAt", past.ParamName);
        Assert.Equal(1, auctions.Count);
    }

    [Fact]
    public async Task InvalidExpiry_IsRejectedWithTheArgumentNamed_AndNothingIsStored()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options(Timeout.InfiniteTimeSpan));
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var player = new Player(1, "p", 1, 1);

        Assert.Equal("expiresAfter", (await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => players.UpsertAsync(player, TimeSpan.Zero))).ParamName);
        Assert.Equal("expiresAfter", (await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => players.InsertAsync(player, TimeSpan.FromSeconds(-1)))).ParamName);
        Assert.Equal("expiresAfter", (await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => players.UpsertAsync(player, TimeSpan.MaxValue))).ParamName);
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => players.WriteAsync(b => b.Upsert(player).Upsert(player, TimeSpan.Zero)));
        Assert.Equal(0, players.Count);

        var bad = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StellarStore.OpenAsync(Path.Combine(_dir.Path, "other"), new StoreOptions { ExpirySweepInterval = TimeSpan.Zero }));
        Assert.Equal(nameof(StoreOptions.ExpirySweepInterval), bad.ParamName);
    }

    /// <summary>Sweep intervals a timer cannot take: beyond its longest due time, or under the millisecond it counts in.</summary>
    public static TheoryData<TimeSpan> IntervalsNoTimerTakes() =>
    [
        TimeSpan.FromDays(60),
        TimeSpan.FromMilliseconds(4_294_967_295),
        TimeSpan.MaxValue,
        TimeSpan.FromMilliseconds(0.5),
        TimeSpan.FromTicks(1),
        TimeSpan.Zero,
        TimeSpan.FromSeconds(-1),
    ];

    [Theory]
    [MemberData(nameof(IntervalsNoTimerTakes))]
    public async Task OpenAsync_WithASweepIntervalNoTimerTakes_RefusesItNamingTheOption(TimeSpan interval)
    {
        var bad = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StellarStore.OpenAsync(_dir.Path, Options(interval)));
        Assert.Equal(nameof(StoreOptions.ExpirySweepInterval), bad.ParamName);
        Assert.Empty(Directory.EnumerateFileSystemEntries(_dir.Path));
    }

    [Fact]
    public async Task OpenAsync_WithTheLongestSweepIntervalATimerTakes_LoadsCollectionsAndTheUnitLog()
    {
        var options = Options(TimeSpan.FromMilliseconds(4_294_967_294));
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var guilds = store.GetCollection<int, Player>("guilds", p => p.Id);
            await store.WriteAsync(b =>
            {
                b.In(players).Upsert(new Player(1, "p", 1, 1));
                b.In(guilds).Upsert(new Player(1, "g", 1, 1));
            });
        }

        // The store now has a unit log, which its open loads (and gives a sweep timer) before any collection.
        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Equal("p", reopened.GetCollection<int, Player>("players", p => p.Id).Get(1)?.Name);
        Assert.Equal("g", reopened.GetCollection<int, Player>("guilds", p => p.Id).Get(1)?.Name);
    }

    private StoreOptions Options(TimeSpan sweep) => new() { Clock = _clock, ExpirySweepInterval = sweep };
}
