using Akka.Actor;
using Akka.Actor.Setup;
using Akka.Configuration;
using Akka.Persistence.Sql;
using Akka.Persistence.Sql.Config;
using LinqToDB;
using Microsoft.Data.Sqlite;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Persistence;

namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>
/// The journals of the persistence benchmark, each an actor system built from a HOCON string (the SQL rows add the
/// <c>DataOptions</c> that apply SQLite's settings). Pairings as everywhere in the benchmarks: our journal in Fsync
/// mode beside Akka.Persistence.Sql on SQLite in WAL mode with <c>synchronous=FULL</c> (fsync), and in WriteThrough
/// mode beside SQLite with <c>synchronous=NORMAL</c> (os-write). Akka's in-memory journal is the floor (no
/// durability: what the actors and Akka.Persistence cost without a store).
/// </summary>
internal static class JournalKinds
{
    /// <summary>The row names.</summary>
    public const string InMemory = "InMemory", SqlFull = "Sql_SqliteFull", SqlNormal = "Sql_SqliteNormal",
        StellarFsync = "Stellar_Fsync", StellarWriteThrough = "Stellar_WriteThrough";

    /// <summary>Our row and the peer row it is judged against, one pair per durability pairing.</summary>
    public static IReadOnlyList<(string Ours, string Peer)> Goals { get; } = [(StellarFsync, SqlFull), (StellarWriteThrough, SqlNormal)];

    /// <summary>The pairing of the in-memory journal: no durability, a floor only.</summary>
    public const string Memory = "memory";

    /// <summary>Every journal, in the order of the tables.</summary>
    public static IReadOnlyList<JournalKind> All { get; } =
    [
        new(StellarFsync, Pairing.Fsync, true, (directory, name, shared) => StartStellar(directory, name, shared, "fsync")),
        new(SqlFull, Pairing.Fsync, true, (directory, name, shared) => StartSql(directory, name, shared, full: true)),
        new(StellarWriteThrough, Pairing.OsWrite, true, (directory, name, shared) => StartStellar(directory, name, shared, "write-through")),
        new(SqlNormal, Pairing.OsWrite, true, (directory, name, shared) => StartSql(directory, name, shared, full: false)),
        new(InMemory, Memory, false, (_, name, shared) => Start(name, """
            akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
            """ + "\n" + shared, null)),
    ];

    /// <summary>What every row shares: quiet logging, and asks that outlast a slow fsync-per-event row.</summary>
    private const string Common = """
        akka.loglevel = WARNING
        akka.stdout-loglevel = WARNING
        akka.actor.ask-timeout = 120s
        """;

    /// <summary>
    /// Our journal and snapshot store on one store in the row's directory, with the plugin's defaults (LZ4, no
    /// encryption) and the row's durability: all that differs from the SQL rows is this HOCON.
    /// </summary>
    private static JournalSystem StartStellar(string directory, string name, string shared, string durability)
    {
        var path = directory.Replace("\\", "/", StringComparison.Ordinal);
        var hocon = $$"""
            akka.persistence.journal.plugin = "{{StellarPersistence.JournalPluginId}}"
            akka.persistence.journal.stellar { path = "{{path}}", durability = {{durability}} }
            akka.persistence.snapshot-store.plugin = "{{StellarPersistence.SnapshotStorePluginId}}"
            akka.persistence.snapshot-store.stellar { path = "{{path}}", durability = {{durability}} }
            """;
        return Start(name, hocon + "\n" + shared, null, null, StellarPersistence.DefaultConfiguration());
    }

    /// <summary>
    /// Akka.Persistence.Sql as its documentation sets it up for SQLite: the Microsoft.Data.Sqlite provider by its
    /// LinqToDB name (<c>ProviderName.SQLiteMS</c>), its defaults (<c>SqlPersistence.DefaultConfiguration</c>) behind
    /// the row's settings, <c>parallelism = 1</c> ("SQLite allows at most a single writer at a time even in WAL mode"),
    /// its default batching (up to <c>batch-size = 100</c> writes per transaction) with the opt-in batched inserts its
    /// README documents for SQLite (<c>tagtable-asqueryable-insert-mode = parameterized</c>,
    /// <c>prefer-parameters-on-multirow-insert = true</c>; level with the default or ahead of it at 1,000 actors in a
    /// short A/B on this machine), and its own snapshot store. The database is created in WAL mode first (a mode SQLite
    /// keeps in the file); the <c>synchronous</c> setting, which SQLite keeps per connection, is applied by
    /// <see cref="SqlitePragmas"/> on every connection the plugin opens, handed to it as <c>DataOptions</c> through its
    /// <see cref="DataOptionsSetup"/>.
    /// </summary>
    private static JournalSystem StartSql(string directory, string name, string shared, bool full)
    {
        var connectionString = new SqliteConnectionStringBuilder { DataSource = Path.Combine(directory, "journal.db") }.ToString();
        using (var create = new SqliteConnection(connectionString))
        {
            create.Open();
            using var wal = create.CreateCommand();
            wal.CommandText = "PRAGMA journal_mode=WAL;";
            var mode = wal.ExecuteScalar() as string;
            if (!string.Equals(mode, "wal", StringComparison.OrdinalIgnoreCase))
            {
                throw new InvalidOperationException($"SQLite did not switch {connectionString} to WAL mode: it reports '{mode}'.");
            }
        }

        var pragmas = new SqlitePragmas(full);
        var options = new DataOptions().UseConnectionString(ProviderName.SQLiteMS, connectionString).UseInterceptor(pragmas);
        var hocon = $$"""
            akka.persistence.journal.plugin = "akka.persistence.journal.sql"
            akka.persistence.journal.sql {
              connection-string = "{{connectionString}}"
              provider-name = "{{ProviderName.SQLiteMS}}"
              parallelism = 1
              tagtable-asqueryable-insert-mode = parameterized
              prefer-parameters-on-multirow-insert = true
            }
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.sql"
            akka.persistence.snapshot-store.sql {
              connection-string = "{{connectionString}}"
              provider-name = "{{ProviderName.SQLiteMS}}"
            }
            """;
        return Start(name, hocon + "\n" + shared, new DataOptionsSetup(options), pragmas, SqlPersistence.DefaultConfiguration);
    }

    /// <summary>
    /// The HOCON every row of a run shares for <paramref name="serialization"/>: the binding of the events' serializer,
    /// if any.
    /// </summary>
    public static string Shared(EventSerialization serialization) => serialization switch
    {
        EventSerialization.Binary => $$"""
            akka.actor.serializers.scored = "{{typeof(ScoredSerializer).AssemblyQualifiedName}}"
            akka.actor.serialization-bindings { "{{typeof(Scored).AssemblyQualifiedName}}" = scored }
            """,
        EventSerialization.Json => string.Empty,
        _ => throw new ArgumentOutOfRangeException(nameof(serialization), serialization, "Not a serialization of the benchmark."),
    };

    private static JournalSystem Start(string name, string hocon, Setup? setup, SqlitePragmas? pragmas = null, Config? defaults = null)
    {
        var config = ConfigurationFactory.ParseString(hocon + "\n" + Common);
        var bootstrap = BootstrapSetup.Create().WithConfig(defaults is null ? config : config.WithFallback(defaults));
        var actorSystemSetup = setup is null ? ActorSystemSetup.Create(bootstrap) : ActorSystemSetup.Create(bootstrap, setup);
        return new JournalSystem(ActorSystem.Create(name, actorSystemSetup), pragmas);
    }
}
