using Akka.Actor;
using Microsoft.Data.Sqlite;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// An actor system started on one journal, with the SQLite settings probe of the SQL rows. Disposing terminates the
/// system (its coordinated shutdown stops the journal, which closes its store) and, for SQLite, clears the connection
/// pool, so that the directory can be reopened or deleted afterwards.
/// </summary>
internal sealed class JournalSystem(ActorSystem system, SqlitePragmas? pragmas) : IDisposable
{
    /// <summary>The actor system.</summary>
    public ActorSystem System { get; } = system;

    /// <summary>The SQLite settings probe, for the SQL rows; null for the others.</summary>
    public SqlitePragmas? Pragmas { get; } = pragmas;

    /// <inheritdoc />
    public void Dispose()
    {
        System.Terminate().Wait(TimeSpan.FromMinutes(1));
        if (Pragmas is not null)
        {
            SqliteConnection.ClearAllPools();
        }
    }
}
