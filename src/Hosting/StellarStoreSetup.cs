using Akka.Actor.Setup;

namespace Stellar.Store.Hosting;

/// <summary>
/// The mark <c>WithStellarStore()</c> leaves in the host's actor system setup: the store's writers run in that system.
/// </summary>
/// <remarks>Thread safety: immutable.</remarks>
internal sealed class StellarStoreSetup : Setup
{
}
