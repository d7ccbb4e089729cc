using LiteDB;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>The stores the game mix runs against, each filled with the players before the clock starts.</summary>
internal static class GameStores
{
    public static IEnumerable<Func<string, SmallRecord[], IGameStore>> All =>
    [
        (dir, players) => new StellarGame(dir, players, Durability.WriteThrough),
        (dir, players) => new StellarGame(dir, players, Durability.Fsync),
        (dir, players) => new LiteGame(dir, players),
        (dir, players) => new SqliteGame(dir, players, SqliteSync.Normal),
        (dir, players) => new SqliteGame(dir, players, SqliteSync.Full),
    ];

    private sealed class StellarGame : IGameStore
    {
        private readonly StellarStore _store;
        private readonly Collection<int, SmallRecord> _players;

        public StellarGame(string directory, SmallRecord[] players, Durability durability)
        {
            Name = $"Stellar_{durability}";
            (_store, _players) = Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(durability));
            _players.BulkImportAsync(players).GetAwaiter().GetResult();
        }

        public string Name { get; }

        public bool IsAsync => true;

        public ValueTask UpsertAsync(SmallRecord player) => new(_players.UpsertAsync(player));

        // What a user writes: LINQ over one snapshot. The store has no secondary index, so this scans every player.
        public int Top(int count) => _players.Query().OrderByDescending(p => p.Score).Take(count).Count();

        public void Dispose() => _store.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    private sealed class LiteGame : IGameStore
    {
        private readonly LiteDatabase _database;
        private readonly ILiteCollection<SmallRecord> _players;

        public LiteGame(string directory, SmallRecord[] players)
        {
            _database = Lite.Open(directory);
            _players = Lite.Small(_database);
            _players.EnsureIndex(p => p.Score);
            _players.InsertBulk(players);
        }

        public string Name => "LiteDb";

        public bool IsAsync => false;

        public ValueTask UpsertAsync(SmallRecord player)
        {
            _players.Upsert(player);
            return ValueTask.CompletedTask;
        }

        public int Top(int count) => _players.Query().OrderByDescending(p => p.Score).Limit(count).ToList().Count;

        public void Dispose() => _database.Dispose();
    }

    /// <summary>Writers share one connection (SQLite has one writer); each reader thread has its own (WAL readers do not block the writer).</summary>
    private sealed class SqliteGame : IGameStore
    {
        private readonly string _directory;
        private readonly SqliteSync _sync;
        private readonly Sqlite _writer;
        private readonly ThreadLocal<Sqlite> _readers;

        public SqliteGame(string directory, SmallRecord[] players, SqliteSync sync)
        {
            _directory = directory;
            _sync = sync;
            Name = $"Sqlite_{sync}";
            _writer = new Sqlite(directory, sync);
            _writer.IndexScore();
            _writer.BulkInsert(players);
            _readers = new ThreadLocal<Sqlite>(() => new Sqlite(_directory, _sync), trackAllValues: true);
        }

        public string Name { get; }

        public bool IsAsync => false;

        public ValueTask UpsertAsync(SmallRecord player)
        {
            _writer.Upsert(player);
            return ValueTask.CompletedTask;
        }

        public int Top(int count) => _readers.Value!.Top(count).Count;

        public void Dispose()
        {
            foreach (var reader in _readers.Values)
            {
                reader.Dispose();
            }

            _readers.Dispose();
            _writer.Dispose();
        }
    }
}
