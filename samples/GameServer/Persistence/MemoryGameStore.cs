using System.Collections.Concurrent;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Verification;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// The same game state in dictionaries, kept only in memory: the baseline that shows what persistence costs the
/// tick. Its writes complete at once. A unit is checked whole and then applied under one lock over the economy's
/// dictionaries, so it is atomic across them, is rejected as the store rejects it (a duplicate insert, a missing
/// update), and a reader under the lock sees it whole or not at all, as a store snapshot does. A session keeps the time
/// its lease ends, and every read leaves it out from then on, as the store's reads do.
/// </summary>
internal sealed class MemoryGameStore : IGameStore
{
    private readonly TimeProvider _clock;
    private readonly Lock _economyLock = new();
    private readonly Dictionary<string, AccountRecord> _accounts = new(StringComparer.Ordinal);
    private readonly Dictionary<long, CharacterRecord> _characters = new();
    private readonly Dictionary<long, ItemRecord> _items = new();
    private readonly Dictionary<long, LedgerEntry> _ledger = new();
    private readonly Dictionary<long, TradeRecord> _trades = new();
    private readonly ConcurrentDictionary<long, PositionRecord> _positions = new();
    private readonly ConcurrentDictionary<long, ScoreRecord> _leaderboard = new();
    private readonly ConcurrentDictionary<long, ChunkRecord> _chunks = new();

    // An ended lease stays here until its key is written again: the game deletes every session at logout, and only a
    // crash leaves one behind, which nothing here survives.
    private readonly ConcurrentDictionary<long, (SessionRecord Session, DateTimeOffset Ends)> _sessions = new();

    /// <param name="clock">Decides when sessions expire; the system's by default.</param>
    public MemoryGameStore(TimeProvider? clock = null) => _clock = clock ?? TimeProvider.System;

    public string Description => "in-memory dictionaries (--no-persistence: nothing is stored)";

    public string? Directory => null;

    public long LiveRecords
    {
        get
        {
            lock (_economyLock)
            {
                return _accounts.Count + _characters.Count + _items.Count + _ledger.Count + _trades.Count +
                    _positions.Count + _leaderboard.Count + _chunks.Count + LiveSessions().Count();
            }
        }
    }

    public AccountRecord? GetAccount(string name)
    {
        lock (_economyLock)
        {
            return _accounts.GetValueOrDefault(name);
        }
    }

    public CharacterRecord? GetCharacter(long id)
    {
        lock (_economyLock)
        {
            return _characters.GetValueOrDefault(id);
        }
    }

    public PositionRecord? GetPosition(long characterId) => _positions.GetValueOrDefault(characterId);

    public IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId)
    {
        lock (_economyLock)
        {
            return _items.Values.Where(i => i.OwnerId == characterId).ToList();
        }
    }

    public ScoreRecord? GetScore(long characterId) => _leaderboard.GetValueOrDefault(characterId);

    public ChunkRecord? GetChunk(long id) => _chunks.GetValueOrDefault(id);

    public SessionRecord? GetSession(long characterId) =>
        _sessions.TryGetValue(characterId, out var lease) && _clock.GetUtcNow() < lease.Ends ? lease.Session : null;

    public IReadOnlyList<ScoreRecord> TopScores(int count) =>
        _leaderboard.Values.OrderByDescending(s => s.Score).ThenBy(s => s.CharacterId).Take(count).ToList();

    public long HighestId()
    {
        lock (_economyLock)
        {
            return _characters.Keys.Concat(_items.Keys).Concat(_ledger.Keys).Concat(_trades.Keys)
                .Concat(_accounts.Values.Select(a => a.CharacterId)).DefaultIfEmpty(0).Max();
        }
    }

    public VerificationResult Verify(IReadOnlyCollection<long>? acknowledgedTrades = null, Guid? stoppedRun = null)
    {
        // The sessions first: one is written only once its character's creation is applied, so the economy read after
        // holds the character of every session read here.
        var sessions = LiveSessions().ToList();
        EconomyState state;
        lock (_economyLock)
        {
            state = new EconomyState(_accounts.Values.ToList(), _characters.Values.ToList(), _items.Values.ToList(), _ledger.Values.ToList(), _trades.Values.ToList(), sessions);
        }

        return EconomyVerifier.Verify(state, acknowledgedTrades, stoppedRun);
    }

    public Task WriteAsync(GameUnit unit)
    {
        lock (_economyLock)
        {
            // Checked whole first, so that a rejected unit changes nothing, as in the store.
            if (Rejection(unit) is { } rejection)
            {
                return Task.FromException(rejection);
            }

            unit.NewAccounts.ForEach(a => _accounts.Add(a.Name, a));
            unit.NewCharacters.ForEach(c => _characters.Add(c.Id, c));
            unit.Characters.ForEach(c => _characters[c.Id] = c);
            unit.NewItems.ForEach(i => _items.Add(i.Id, i));
            unit.Items.ForEach(i => _items[i.Id] = i);
            unit.DeletedItems.ForEach(id => _items.Remove(id));
            unit.Ledger.ForEach(l => _ledger.Add(l.Id, l));
            unit.Trades.ForEach(t => _trades.Add(t.Id, t));
        }

        return Task.CompletedTask;
    }

    public Task UpsertAccountAsync(AccountRecord account)
    {
        lock (_economyLock)
        {
            _accounts[account.Name] = account;
        }

        return Task.CompletedTask;
    }

    public Task UpsertPositionAsync(PositionRecord position)
    {
        _positions[position.CharacterId] = position;
        return Task.CompletedTask;
    }

    public Task UpsertScoreAsync(ScoreRecord score)
    {
        _leaderboard[score.CharacterId] = score;
        return Task.CompletedTask;
    }

    public Task UpsertChunkAsync(ChunkRecord chunk)
    {
        _chunks[chunk.Id] = chunk;
        return Task.CompletedTask;
    }

    public Task UpsertSessionAsync(SessionRecord session, TimeSpan lease)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(lease, TimeSpan.Zero);
        _sessions[session.CharacterId] = (session, _clock.GetUtcNow() + lease);
        return Task.CompletedTask;
    }

    public Task DeleteSessionAsync(long characterId)
    {
        _sessions.TryRemove(characterId, out _);
        return Task.CompletedTask;
    }

    public ValueTask DisposeAsync() => ValueTask.CompletedTask;

    /// <summary>The sessions whose lease has not ended, read at one time.</summary>
    private IEnumerable<SessionRecord> LiveSessions()
    {
        var now = _clock.GetUtcNow();
        return _sessions.Values.Where(s => now < s.Ends).Select(s => s.Session);
    }

    /// <summary>What the store would reject the unit with, or null. The game never writes one key twice in a unit.</summary>
    private Exception? Rejection(GameUnit unit)
    {
        var duplicate =
            unit.NewAccounts.Where(a => _accounts.ContainsKey(a.Name)).Select(a => $"account '{a.Name}'")
            .Concat(unit.NewCharacters.Where(c => _characters.ContainsKey(c.Id)).Select(c => $"character {c.Id}"))
            .Concat(unit.NewItems.Where(i => _items.ContainsKey(i.Id)).Select(i => $"item {i.Id}"))
            .Concat(unit.Ledger.Where(l => _ledger.ContainsKey(l.Id)).Select(l => $"ledger entry {l.Id}"))
            .Concat(unit.Trades.Where(t => _trades.ContainsKey(t.Id)).Select(t => $"trade {t.Id}"))
            .FirstOrDefault();
        if (duplicate is not null)
        {
            return new InvalidOperationException($"The unit inserts {duplicate}, which exists; nothing of it was applied.");
        }

        var missing =
            unit.Characters.Where(c => !_characters.ContainsKey(c.Id)).Select(c => $"character {c.Id}")
            .Concat(unit.Items.Where(i => !_items.ContainsKey(i.Id)).Select(i => $"item {i.Id}"))
            .FirstOrDefault();
        return missing is null ? null : new KeyNotFoundException($"The unit updates {missing}, which does not exist; nothing of it was applied.");
    }
}
