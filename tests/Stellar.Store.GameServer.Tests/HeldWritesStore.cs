using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// The game's state in dictionaries (<see cref="MemoryGameStore"/>), where the test can hold back the writes of accounts
/// and scores, and units: a held write is applied, in the order it was issued, and its task completes only when the test releases
/// it, as a store whose writer is slow would; or make every score write fail, as a faulted collection does. Every
/// other write is stored at once.
/// </summary>
/// <remarks>Thread safety: as <see cref="MemoryGameStore"/>; hold and release from one thread.</remarks>
internal sealed class HeldWritesStore : IGameStore
{
    private readonly MemoryGameStore _inner = new();
    private readonly List<(Func<Task> Write, TaskCompletionSource Stored)> _held = new();

    /// <summary>Whether account writes are held until <see cref="Release"/>.</summary>
    public bool HoldAccounts { get; set; }

    /// <summary>Whether score writes are held until <see cref="Release"/>.</summary>
    public bool HoldScores { get; set; }

    /// <summary>Whether units (<see cref="WriteAsync"/>) are held until <see cref="Release"/>: until then, a crash would lose them.</summary>
    public bool HoldUnits { get; set; }

    /// <summary>Whether score writes fail (nothing stored), as the writes of a faulted collection do.</summary>
    public bool FailScores { get; set; }

    /// <summary>Writes held now.</summary>
    public int Held
    {
        get
        {
            lock (_held)
            {
                return _held.Count;
            }
        }
    }

    public string Description => _inner.Description;

    public string? Directory => _inner.Directory;

    public long LiveRecords => _inner.LiveRecords;

    /// <summary>Stops holding writes, and stores the held ones in the order they were issued.</summary>
    public async Task Release()
    {
        HoldAccounts = false;
        HoldScores = false;
        HoldUnits = false;
        List<(Func<Task> Write, TaskCompletionSource Stored)> held;
        lock (_held)
        {
            held = _held.ToList();
            _held.Clear();
        }

        foreach (var (write, stored) in held)
        {
            await write();
            stored.SetResult();
        }
    }

    public AccountRecord? GetAccount(string name) => _inner.GetAccount(name);

    public CharacterRecord? GetCharacter(long id) => _inner.GetCharacter(id);

    public PositionRecord? GetPosition(long characterId) => _inner.GetPosition(characterId);

    public IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId) => _inner.ItemsOwnedBy(characterId);

    public ScoreRecord? GetScore(long characterId) => _inner.GetScore(characterId);

    public ChunkRecord? GetChunk(long id) => _inner.GetChunk(id);

    public SessionRecord? GetSession(long characterId) => _inner.GetSession(characterId);

    public IReadOnlyList<ScoreRecord> TopScores(int count) => _inner.TopScores(count);

    public long HighestId() => _inner.HighestId();

    public VerificationResult Verify(IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null) => _inner.Verify(acknowledgedTrades, stoppedRun);

    public Task WriteAsync(GameUnit unit) => HoldUnits ? Hold(() => _inner.WriteAsync(unit)) : _inner.WriteAsync(unit);

    public Task UpsertAccountAsync(AccountRecord account) => HoldAccounts ? Hold(() => _inner.UpsertAccountAsync(account)) : _inner.UpsertAccountAsync(account);

    public Task UpsertPositionAsync(PositionRecord position) => _inner.UpsertPositionAsync(position);

    public Task UpsertScoreAsync(ScoreRecord score) =>
        FailScores ? Task.FromException(new IOException("The leaderboard is faulted."))
        : HoldScores ? Hold(() => _inner.UpsertScoreAsync(score))
        : _inner.UpsertScoreAsync(score);

    public Task UpsertChunkAsync(ChunkRecord chunk) => _inner.UpsertChunkAsync(chunk);

    public Task UpsertSessionAsync(SessionRecord session, TimeSpan lease) => _inner.UpsertSessionAsync(session, lease);

    public Task DeleteSessionAsync(long characterId) => _inner.DeleteSessionAsync(characterId);

    public ValueTask DisposeAsync() => _inner.DisposeAsync();

    private Task Hold(Func<Task> write)
    {
        var stored = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_held)
        {
            _held.Add((write, stored));
        }

        return stored.Task;
    }
}
