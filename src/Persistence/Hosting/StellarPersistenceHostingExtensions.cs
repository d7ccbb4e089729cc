using Akka.Hosting;
using Akka.Persistence.Hosting;

namespace Stellar.Store.Persistence.Hosting;

/// <summary>Akka.Hosting: the Stellar journal, snapshot store and read journal in the host's actor system.</summary>
/// <remarks>Thread safety: call while the host is being built, from one thread.</remarks>
public static class StellarPersistenceHostingExtensions
{
    /// <summary>
    /// Makes the Stellar journal and snapshot store the default plugins, both on the store at <paramref name="path"/>
    /// (one open store, shared), with <paramref name="durability"/>, and adds the read journal's defaults
    /// (<c>StellarReadJournal.Identifier</c>). <paramref name="journalBuilder"/> adds event adapters, as
    /// Akka.Persistence.Hosting's <c>WithJournal</c> does (a tagging write adapter feeds <c>EventsByTag</c>).
    /// </summary>
    /// <param name="builder">The Akka.Hosting builder passed to <c>AddAkka</c>.</param>
    /// <param name="path">The store's directory.</param>
    /// <param name="durability">What an acknowledged <c>Persist</c> or snapshot survives.</param>
    /// <param name="journalBuilder">Adds event adapters to the journal; null for none.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static AkkaConfigurationBuilder WithStellarPersistence(this AkkaConfigurationBuilder builder, string path, Durability durability = Durability.WriteThrough, Action<AkkaPersistenceJournalBuilder>? journalBuilder = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return builder.WithStellarPersistence(
            new StellarJournalOptions { Path = path, Durability = durability },
            new StellarSnapshotOptions { Path = path, Durability = durability },
            journalBuilder);
    }

    /// <summary>
    /// Adds the Stellar journal and snapshot store with <paramref name="journalOptions"/> and
    /// <paramref name="snapshotOptions"/> (either may be null to add only the other), and the read journal's defaults.
    /// Plugins with the same path share one open store and must have the same durability, compression and key.
    /// </summary>
    /// <param name="builder">The Akka.Hosting builder passed to <c>AddAkka</c>.</param>
    /// <param name="journalOptions">The journal's settings, or null.</param>
    /// <param name="snapshotOptions">The snapshot store's settings, or null.</param>
    /// <param name="journalBuilder">Adds event adapters to the journal; null for none.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static AkkaConfigurationBuilder WithStellarPersistence(this AkkaConfigurationBuilder builder, StellarJournalOptions? journalOptions, StellarSnapshotOptions? snapshotOptions, Action<AkkaPersistenceJournalBuilder>? journalBuilder = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddHocon(StellarPersistence.DefaultConfiguration(), HoconAddMode.Append);
        if (journalOptions is not null)
        {
            builder.WithJournal(journalOptions, journalBuilder ?? (_ => { }));
        }

        if (snapshotOptions is not null)
        {
            builder.WithSnapshot(snapshotOptions);
        }

        return builder;
    }
}
