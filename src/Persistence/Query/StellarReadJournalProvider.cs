using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence.Query;

namespace Stellar.Store.Persistence.Query;

/// <summary>
/// Makes the <see cref="StellarReadJournal"/> for <c>PersistenceQuery.Get(system).ReadJournalFor&lt;StellarReadJournal&gt;(StellarReadJournal.Identifier)</c>;
/// named by the <c>class</c> of <c>akka.persistence.query.journal.stellar</c>.
/// </summary>
/// <remarks>Thread safety: Akka.Persistence.Query calls it once per system.</remarks>
public sealed class StellarReadJournalProvider : IReadJournalProvider
{
    private readonly ExtendedActorSystem _system;
    private readonly Config _config;

    /// <summary>Made by Akka.Persistence.Query with the read journal's configuration block.</summary>
    public StellarReadJournalProvider(ExtendedActorSystem system, Config config)
    {
        ArgumentNullException.ThrowIfNull(system);
        ArgumentNullException.ThrowIfNull(config);
        _system = system;
        _config = config;
    }

    /// <inheritdoc />
    public IReadJournal GetReadJournal() => new StellarReadJournal(_system, _config);
}
