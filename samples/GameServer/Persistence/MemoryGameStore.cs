using System.Collections.Concurrent;
using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Persistence;

/// <summary>
/// The same game state in dictionaries, kept only in memory: the baseline that shows what persistence costs the
/// tick. Its writes complete at once; an economy batch is applied under a lock, so it is atomic too.
/// </summary>
internal sealed class MemoryGameStore : IGameStore
{
    private readonly ConcurrentDictionary<string, AccountRecord> _accounts = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<long, ScoreRecord> _leaderboard = new();
    private readonly ConcurrentDictionary<long, ChunkRecord> _chunks = new();
    private readonly Dictionary<EconomyKey, EconomyRecord> _economy = new();
    private readonly Lock _economyLock = new();

    public string Description => "in-memory dictionaries (--no-persistence: nothing is stored)";

    public string? Directory => null;

    public long LiveRecords
    {
        get
        {
            lock (_economyLock)
            {
                return _accounts.Count + _leaderboard.Count + _chunks.Count + _economy.Count;
            }
        }
    }

    public AccountRecord? GetAccount(string name) => _accounts.GetValueOrDefault(name);

    public CharacterRecord? GetCharacter(long id)
    {
        lock (_economyLock)
        {
            return _economy.GetValueOrDefault(new EconomyKey(EconomyKind.Character, id)) as CharacterRecord;
        }
    }

    public IReadOnlyList<ItemRecord> ItemsOwnedBy(long characterId)
    {
        lock (_economyLock)
        {
            return _economy.Values.OfType<ItemRecord>().Where(i => i.OwnerId == characterId).ToList();
        }
    }

    public ScoreRecord? GetScore(long characterId) => _leaderboard.GetValueOrDefault(characterId);

    public ChunkRecord? GetChunk(long id) => _chunks.GetValueOrDefault(id);

    public IReadOnlyList<ScoreRecord> TopScores(int count) =>
        _leaderboard.Values.OrderByDescending(s => s.Score).ThenBy(s => s.CharacterId).Take(count).ToList();

    public long HighestId()
    {
        lock (_economyLock)
        {
            return Math.Max(_economy.Keys.Select(k => k.Id).DefaultIfEmpty(0).Max(), _accounts.Values.Select(a => a.CharacterId).DefaultIfEmpty(0).Max());
        }
    }

    /// <summary>A copy of every economy record, for verification.</summary>
    public IReadOnlyList<EconomyRecord> Economy()
    {
        lock (_economyLock)
        {
            return _economy.Values.ToList();
        }
    }

    public Task WriteEconomyAsync(EconomyBatch batch)
    {
        lock (_economyLock)
        {
            // Checked first so that a rejected batch changes nothing, as in the store.
            var duplicate = batch.Inserts.Find(r => _economy.ContainsKey(r.Key));
            if (duplicate is not null)
            {
                return Task.FromException(new InvalidOperationException($"Economy key {duplicate.Key} exists."));
            }

            foreach (var record in batch.Inserts.Concat(batch.Upserts))
            {
                _economy[record.Key] = record;
            }

            foreach (var key in batch.Deletes)
            {
                _economy.Remove(key);
            }
        }

        return Task.CompletedTask;
    }

    public Task UpsertAccountAsync(AccountRecord account)
    {
        _accounts[account.Name] = account;
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

    public ValueTask DisposeAsync() => ValueTask.CompletedTask;
}
