using Microsoft.Data.Sqlite;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>SQLite's <c>synchronous</c> setting in WAL mode.</summary>
public enum SqliteSync
{
    /// <summary>WAL + NORMAL: a commit is written to the WAL without fsync (fsync at checkpoints): survives a process crash.</summary>
    Normal,

    /// <summary>WAL + FULL: every commit fsyncs the WAL: survives power loss.</summary>
    Full,
}

/// <summary>
/// SQLite through Microsoft.Data.Sqlite in WAL mode, with prepared statements, tuned as its documentation advises
/// for a database that fits in memory: a 64 MiB page cache (<c>cache_size=-65536</c>; the default is 2 MB, smaller
/// than the 100,000-record databases read here) and 256 MiB of memory-mapped I/O (<c>mmap_size</c>), so reads are
/// served from memory as every other peer's are. One connection per instance; SQLite runs one writer at a time, so
/// concurrent callers share the connection under a lock. Readers that must not wait for writers open their own
/// instance (WAL readers do not block the writer).
/// </summary>
public sealed class Sqlite : IDisposable
{
    private const string Columns = "id, name, score, last_seen";

    private readonly Lock _lock = new();
    private readonly SqliteConnection _connection;
    private readonly SqliteCommand _insert;
    private readonly SqliteCommand _upsert;
    private readonly SqliteCommand _delete;
    private readonly SqliteCommand _get;
    private readonly SqliteCommand _scan;
    private readonly SqliteCommand _top;
    private readonly SqliteCommand _insertLarge;

    /// <summary>Opens (or creates) <c>records.db</c> in <paramref name="directory"/>.</summary>
    public Sqlite(string directory, SqliteSync sync)
    {
        var builder = new SqliteConnectionStringBuilder { DataSource = Path.Combine(directory, "records.db"), Pooling = false };
        _connection = new SqliteConnection(builder.ToString());
        _connection.Open();
        Execute("PRAGMA journal_mode=WAL;");
        Execute(sync == SqliteSync.Full ? "PRAGMA synchronous=FULL;" : "PRAGMA synchronous=NORMAL;");
        Execute("PRAGMA busy_timeout=10000;");
        Execute("PRAGMA cache_size=-65536;");
        Execute("PRAGMA mmap_size=268435456;");
        Execute("PRAGMA temp_store=MEMORY;");
        Execute("CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, last_seen INTEGER NOT NULL);");
        Execute("CREATE TABLE IF NOT EXISTS large (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, last_seen INTEGER NOT NULL, body TEXT NOT NULL);");
        _insert = Prepare($"INSERT INTO records ({Columns}) VALUES ($id, $name, $score, $seen);", "$id", "$name", "$score", "$seen");
        _upsert = Prepare($"INSERT INTO records ({Columns}) VALUES ($id, $name, $score, $seen) ON CONFLICT(id) DO UPDATE SET name = excluded.name, score = excluded.score, last_seen = excluded.last_seen;",
            "$id", "$name", "$score", "$seen");
        _delete = Prepare("DELETE FROM records WHERE id = $id;", "$id");
        _get = Prepare($"SELECT {Columns} FROM records WHERE id = $id;", "$id");
        _scan = Prepare($"SELECT {Columns} FROM records WHERE score >= $score AND last_seen >= $seen;", "$score", "$seen");
        _top = Prepare($"SELECT {Columns} FROM records ORDER BY score DESC LIMIT $n;", "$n");
        _insertLarge = Prepare($"INSERT INTO large ({Columns}, body) VALUES ($id, $name, $score, $seen, $body);", "$id", "$name", "$score", "$seen", "$body");
    }

    /// <summary>Adds an index on <c>score</c> (for leaderboard queries).</summary>
    public void IndexScore() => Execute("CREATE INDEX IF NOT EXISTS records_score ON records (score);");

    /// <summary>Inserts one record in its own transaction (autocommit).</summary>
    public void Insert(SmallRecord record)
    {
        lock (_lock)
        {
            Bind(_insert, record).ExecuteNonQuery();
        }
    }

    /// <summary>Inserts or replaces one record in its own transaction.</summary>
    public void Upsert(SmallRecord record)
    {
        lock (_lock)
        {
            Bind(_upsert, record).ExecuteNonQuery();
        }
    }

    /// <summary>Deletes one record in its own transaction; whether it existed.</summary>
    public bool Delete(int id)
    {
        lock (_lock)
        {
            _delete.Parameters[0].Value = id;
            return _delete.ExecuteNonQuery() == 1;
        }
    }

    /// <summary>The record with <paramref name="id"/>, or null.</summary>
    public SmallRecord? Get(int id)
    {
        lock (_lock)
        {
            _get.Parameters[0].Value = id;
            using var reader = _get.ExecuteReader();
            return reader.Read() ? Read(reader) : null;
        }
    }

    /// <summary>Every record with <c>score &gt;= minScore</c> seen since <paramref name="since"/>.</summary>
    public List<SmallRecord> Scan(int minScore, DateTime since)
    {
        lock (_lock)
        {
            _scan.Parameters[0].Value = minScore;
            _scan.Parameters[1].Value = since.Ticks;
            return ReadAll(_scan);
        }
    }

    /// <summary>The <paramref name="count"/> records with the highest scores.</summary>
    public List<SmallRecord> Top(int count)
    {
        lock (_lock)
        {
            _top.Parameters[0].Value = count;
            return ReadAll(_top);
        }
    }

    /// <summary>Inserts every record in one transaction with the prepared statement (SQLite's bulk path).</summary>
    public void BulkInsert(IEnumerable<SmallRecord> records) => InTransaction(_insert, records);

    /// <summary>Inserts or replaces every record in one transaction (one commit, one fsync in FULL mode).</summary>
    public void UpsertMany(IEnumerable<SmallRecord> records) => InTransaction(_upsert, records);

    /// <summary>Inserts every record in one transaction; a duplicate key fails the whole transaction.</summary>
    public void InsertMany(IEnumerable<SmallRecord> records) => InTransaction(_insert, records);

    /// <summary>Inserts one large record in its own transaction.</summary>
    public void InsertLarge(LargeRecord record)
    {
        lock (_lock)
        {
            var p = _insertLarge.Parameters;
            p[0].Value = record.Id;
            p[1].Value = record.Name;
            p[2].Value = record.Score;
            p[3].Value = record.LastSeen.Ticks;
            p[4].Value = record.Body;
            _insertLarge.ExecuteNonQuery();
        }
    }

    /// <summary>Closes the connection; the WAL is checkpointed by SQLite when the last connection closes.</summary>
    public void Dispose()
    {
        foreach (var command in new[] { _insert, _upsert, _delete, _get, _scan, _top, _insertLarge })
        {
            command.Dispose();
        }

        _connection.Dispose();
    }

    private void InTransaction(SqliteCommand command, IEnumerable<SmallRecord> records)
    {
        lock (_lock)
        {
            using var transaction = _connection.BeginTransaction();
            command.Transaction = transaction;
            try
            {
                foreach (var record in records)
                {
                    Bind(command, record).ExecuteNonQuery();
                }

                transaction.Commit();
            }
            finally
            {
                command.Transaction = null;
            }
        }
    }

    private static SqliteCommand Bind(SqliteCommand command, SmallRecord record)
    {
        var p = command.Parameters;
        p[0].Value = record.Id;
        p[1].Value = record.Name;
        p[2].Value = record.Score;
        p[3].Value = record.LastSeen.Ticks;
        return command;
    }

    private static SmallRecord Read(SqliteDataReader reader) => new()
    {
        Id = reader.GetInt32(0),
        Name = reader.GetString(1),
        Score = reader.GetInt32(2),
        LastSeen = new DateTime(reader.GetInt64(3), DateTimeKind.Utc),
    };

    private static List<SmallRecord> ReadAll(SqliteCommand command)
    {
        var list = new List<SmallRecord>();
        using var reader = command.ExecuteReader();
        while (reader.Read())
        {
            list.Add(Read(reader));
        }

        return list;
    }

    private void Execute(string sql)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    private SqliteCommand Prepare(string sql, params string[] parameters)
    {
        var command = _connection.CreateCommand();
        command.CommandText = sql;
        foreach (var name in parameters)
        {
            command.Parameters.Add(new SqliteParameter { ParameterName = name, Value = 0 });
        }

        command.Prepare();
        return command;
    }
}
