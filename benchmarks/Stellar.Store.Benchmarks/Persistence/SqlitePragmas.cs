using System.Data.Common;
using LinqToDB.Interceptors;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// Applies the SQLite settings of a row to every connection Akka.Persistence.Sql opens, and records what SQLite
/// reports back. Microsoft.Data.Sqlite's connection string has no keyword for <c>synchronous</c>, which SQLite keeps
/// per connection, so the plugin's documented way in is a LinqToDB interceptor registered on the <c>DataOptions</c>
/// it is given (its release notes: "Configure interceptors through <c>DataOptions.UseInterceptor(s)</c>").
/// Each opened connection runs the same pragmas as the other SQLite rows of the benchmarks, then reads
/// <c>journal_mode</c> and <c>synchronous</c> back: <see cref="Opened"/> counts the connections, <see cref="Mismatches"/>
/// those on which SQLite did not report the asked settings. <c>journal_mode=WAL</c> is stored in the database file
/// (set once when the row creates it, see <see cref="JournalKinds"/>) and only checked here.
/// </summary>
public sealed class SqlitePragmas(bool full) : IConnectionInterceptor
{
    private long _opened;
    private long _mismatches;
    private string _reported = "none";

    /// <summary>The <c>synchronous</c> value asked for: 2 (FULL) or 1 (NORMAL).</summary>
    public int Synchronous { get; } = full ? 2 : 1;

    /// <summary>Connections the plugin opened.</summary>
    public long Opened => Interlocked.Read(ref _opened);

    /// <summary>Opened connections on which SQLite reported another journal mode or synchronous setting than asked.</summary>
    public long Mismatches => Interlocked.Read(ref _mismatches);

    /// <summary>What the last opened connection reported, as <c>journal_mode=…, synchronous=…</c>.</summary>
    public string Reported => Volatile.Read(ref _reported);

    /// <inheritdoc />
    public void ConnectionOpening(ConnectionEventData eventData, DbConnection connection)
    {
    }

    /// <inheritdoc />
    public Task ConnectionOpeningAsync(ConnectionEventData eventData, DbConnection connection, CancellationToken cancellationToken) => Task.CompletedTask;

    /// <inheritdoc />
    public void ConnectionOpened(ConnectionEventData eventData, DbConnection connection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        using (var set = Command(connection, Settings))
        {
            set.ExecuteNonQuery();
        }

        using var mode = Command(connection, "PRAGMA journal_mode;");
        using var synchronous = Command(connection, "PRAGMA synchronous;");
        Check(Convert.ToString(mode.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture), Convert.ToInt64(synchronous.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture));
    }

    /// <inheritdoc />
    public async Task ConnectionOpenedAsync(ConnectionEventData eventData, DbConnection connection, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        var set = Command(connection, Settings);
        await using (set.ConfigureAwait(false))
        {
            await set.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        var mode = Command(connection, "PRAGMA journal_mode;");
        var synchronous = Command(connection, "PRAGMA synchronous;");
        await using (mode.ConfigureAwait(false))
        await using (synchronous.ConfigureAwait(false))
        {
            Check(
                Convert.ToString(await mode.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false), System.Globalization.CultureInfo.InvariantCulture),
                Convert.ToInt64(await synchronous.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false), System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    private string Settings => $"PRAGMA synchronous={Synchronous}; PRAGMA cache_size=-65536; PRAGMA mmap_size=268435456; PRAGMA temp_store=MEMORY;";

    private static DbCommand Command(DbConnection connection, string sql)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        return command;
    }

    private void Check(string? mode, long synchronous)
    {
        Interlocked.Increment(ref _opened);
        if (!string.Equals(mode, "wal", StringComparison.OrdinalIgnoreCase) || synchronous != Synchronous)
        {
            Interlocked.Increment(ref _mismatches);
        }

        Volatile.Write(ref _reported, $"journal_mode={mode}, synchronous={synchronous}");
    }
}
