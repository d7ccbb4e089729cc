using Akka.Hosting;

namespace Stellar.Store.Hosting;

/// <summary>Runs the hosted store's writers in the actor system that Akka.Hosting runs.</summary>
/// <remarks>Thread safety: call while the host is being built, from one thread.</remarks>
public static class StellarStoreAkkaExtensions
{
    /// <summary>
    /// Runs the writer actors of the store registered by <c>AddStellarStore</c> in this actor system (children of the
    /// store's guardian under <c>/user</c>) instead of one the store makes. The store never terminates this system: it is
    /// closed (flushed, fsync) by the host's stop or by the system's <c>CoordinatedShutdown</c>, whichever comes first,
    /// and the system goes on until Akka.Hosting stops it. Call <c>AddStellarStore</c> too; this only says where the
    /// writers run.
    /// </summary>
    /// <param name="builder">The Akka.Hosting builder passed to <c>AddAkka</c>.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static AkkaConfigurationBuilder WithStellarStore(this AkkaConfigurationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.AddSetup(new StellarStoreSetup());
    }
}
