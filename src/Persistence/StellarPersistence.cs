using Akka.Actor;
using Akka.Configuration;

namespace Stellar.Store.Persistence;

/// <summary>The plugin's default HOCON, and the plugin ids it is configured under.</summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
public static class StellarPersistence
{
    /// <summary>The journal's plugin id: <c>akka.persistence.journal.plugin = "akka.persistence.journal.stellar"</c>.</summary>
    public const string JournalPluginId = "akka.persistence.journal.stellar";

    /// <summary>The snapshot store's plugin id.</summary>
    public const string SnapshotStorePluginId = "akka.persistence.snapshot-store.stellar";

    /// <summary>The read journal's plugin id, for <c>PersistenceQuery.Get(system).ReadJournalFor</c>.</summary>
    public const string ReadJournalPluginId = "akka.persistence.query.journal.stellar";

    private static readonly Lazy<Config> Reference = new(LoadReference);

    /// <summary>
    /// The defaults of the journal, the snapshot store and the read journal (the package's <c>reference.conf</c>):
    /// use it as a fallback of a configuration that names only <c>path</c> and what differs.
    /// </summary>
    public static Config DefaultConfiguration() => Reference.Value;

    /// <summary>
    /// Adds <see cref="DefaultConfiguration"/> as a fallback of <paramref name="system"/>'s configuration, as Akka's
    /// plugins do; the journal, the snapshot store and the read journal call it when they start.
    /// </summary>
    public static void InjectDefaults(ActorSystem system)
    {
        ArgumentNullException.ThrowIfNull(system);
        system.Settings.InjectTopLevelFallback(DefaultConfiguration());
    }

    private static Config LoadReference()
    {
        using var stream = typeof(StellarPersistence).Assembly.GetManifestResourceStream("Stellar.Store.Persistence.reference.conf")
            ?? throw new InvalidOperationException("The assembly lacks its embedded reference.conf.");
        using var reader = new StreamReader(stream);
        return ConfigurationFactory.ParseString(reader.ReadToEnd());
    }
}
