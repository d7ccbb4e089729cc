using Stellar.Store.Tests.Api;
using Stellar.Store.Tests.Expiry;

namespace Stellar.Store.Tests.Checkpoints;

/// <summary>
/// A checkpoint opened read-only (<see cref="StellarStore.OpenReadOnlyAsync"/>) is read, never changed: every call that
/// would write or remove anything is refused with <see cref="InvalidOperationException"/>, nothing in the background
/// removes its expired records, and its reads still leave out what has expired by the clock.
/// </summary>
public sealed class ReadOnlyCheckpointTests : IDisposable
{
    private readonly TempDirectory _dir = new();
    private readonly HandTimerClock _clock = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>Every public call of a store and of its collections that writes or removes something.</summary>
    public static TheoryData<string> CallsThatWrite() =>
    [
        "Insert", "Update", "Upsert", "UpsertExpiring", "Delete", "Batch", "EmptyBatch", "BulkImport", "EmptyBulkImport",
        "ExpiringBulkImport", "RemoveExpired", "Compact", "Rollback", "EmptyRollback", "CursorFeed", "StoreWrite",
        "EmptyStoreWrite", "StoreCompact", "Checkpoint", "DeleteCheckpoint",
    ];

    [Theory]
    [MemberData(nameof(CallsThatWrite))]
    public async Task ReadOnlyStore_RefusesEveryCallThatWritesOrRemoves_AndKeepsWhatItStores(string call)
    {
        var checkpoint = await CheckpointWithAnExpiringSessionAsync();
        _clock.Advance(TimeSpan.FromMinutes(5));
        await using var store = await StellarStore.OpenReadOnlyAsync(checkpoint.Path, Options);
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        var stored = sessions.Statistics.StoredBytes;

        await Assert.ThrowsAsync<InvalidOperationException>(() => Call(call, store, sessions));

        await store.FlushAsync();
        Assert.Equal(stored, sessions.Statistics.StoredBytes);
        Assert.Equal(new Player(2, "forever", 1, 1), sessions.Get(2));
    }

    [Fact]
    public async Task ReadOnlyStore_RemovesNoExpiredRecordInTheBackground_AndItsReadsStillLeaveThemOut()
    {
        var checkpoint = await CheckpointWithAnExpiringSessionAsync();
        await using var store = await StellarStore.OpenReadOnlyAsync(checkpoint.Path, Options);
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        var stored = sessions.Statistics.StoredBytes;
        Assert.Equal(2, sessions.Count);

        // What every sweep interval would run, once the session has expired.
        _clock.Advance(TimeSpan.FromMinutes(5));
        _clock.FireTimers();
        await store.FlushAsync();

        Assert.Equal(stored, sessions.Statistics.StoredBytes);
        Assert.Null(sessions.Get(1));
        Assert.False(sessions.TryGet(1, out _));
        Assert.Null(sessions.ExpiresAt(1));
        Assert.Equal(1, sessions.Count);
        Assert.Equal([2], sessions.Query().Select(p => p.Id));
        using var snapshot = sessions.Snapshot();
        Assert.Null(snapshot.Get(1));
        Assert.Equal(1, snapshot.Count);
    }

    private StoreOptions Options => new() { Clock = _clock };

    /// <summary>A checkpoint of collection "sessions": session 1 expires a minute after it was taken, player 2 never.</summary>
    private async Task<CheckpointInfo> CheckpointWithAnExpiringSessionAsync()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path, Options);
        var sessions = store.GetCollection<int, Player>("sessions", p => p.Id);
        await sessions.UpsertAsync(new Player(1, "session", 1, 1), TimeSpan.FromMinutes(1));
        await sessions.UpsertAsync(new Player(2, "forever", 1, 1));
        return await store.CheckpointAsync("before");
    }

    private static Task Call(string call, StellarStore store, Collection<int, Player> sessions) => call switch
    {
        "Insert" => sessions.InsertAsync(new Player(3, "new", 1, 1)),
        "Update" => sessions.UpdateAsync(new Player(2, "changed", 1, 1)),
        "Upsert" => sessions.UpsertAsync(new Player(2, "changed", 1, 1)),
        "UpsertExpiring" => sessions.UpsertAsync(new Player(2, "changed", 1, 1), TimeSpan.FromMinutes(1)),
        "Delete" => sessions.DeleteAsync(2),
        "Batch" => sessions.WriteAsync(b => b.Upsert(new Player(3, "new", 1, 1))),
        "EmptyBatch" => sessions.WriteAsync(_ => { }),
        "BulkImport" => sessions.BulkImportAsync([new Player(3, "new", 1, 1)]),
        "EmptyBulkImport" => sessions.BulkImportAsync(Array.Empty<Player>()),
        "ExpiringBulkImport" => sessions.BulkImportAsync([new Player(3, "new", 1, 1)], _ => null),
        "RemoveExpired" => sessions.RemoveExpiredAsync(),
        "Compact" => sessions.CompactAsync(),
        "Rollback" => sessions.RollbackAsync(store, [1, 2]),
        "EmptyRollback" => sessions.RollbackAsync(store, []),
        "CursorFeed" => Task.FromResult(sessions.Feed("consumer")),
        "StoreWrite" => store.WriteAsync(b => b.In(sessions).Delete(2)),
        "EmptyStoreWrite" => store.WriteAsync(_ => { }),
        "StoreCompact" => store.CompactAsync(),
        "Checkpoint" => store.CheckpointAsync("nested"),
        "DeleteCheckpoint" => Task.FromResult(store.DeleteCheckpoint("before")),
        _ => throw new ArgumentOutOfRangeException(nameof(call), call, "no such call"),
    };
}
