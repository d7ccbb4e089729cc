using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// SQLite with an index on score. Writers share one connection (SQLite has one writer) and write a tick's updates in
/// one transaction; each reader has its own connection, opened and warmed before the clock starts (WAL readers do not
/// block the writer).
/// </summary>
internal sealed class SqliteGame : IGameStore
{
    private readonly Sqlite _writer;
    private readonly Sqlite[] _readers;

    public SqliteGame(string directory, SmallRecord[] players, SqliteSync sync)
    {
        Name = $"Sqlite_{sync}";
        Pairing = sync == SqliteSync.Full ? Infrastructure.Pairing.Fsync : Infrastructure.Pairing.OsWrite;
        _writer = new Sqlite(directory, sync);
        _writer.IndexScore();
        _writer.BulkInsert(players);
        _readers = Enumerable.Range(0, GameMix.Readers).Select(_ => new Sqlite(directory, sync)).ToArray();
        foreach (var reader in _readers)
        {
            reader.Top(1);
        }
    }

    public string Name { get; }

    public string Pairing { get; }

    public bool IsAsync => false;

    public ValueTask WriteTickAsync(IReadOnlyList<SmallRecord> updates)
    {
        _writer.UpsertMany(updates);
        return ValueTask.CompletedTask;
    }

    public IReadOnlyList<SmallRecord> Top(int reader, int count) => _readers[reader % _readers.Length].Top(count);

    public void Dispose()
    {
        foreach (var reader in _readers)
        {
            reader.Dispose();
        }

        _writer.Dispose();
    }
}
