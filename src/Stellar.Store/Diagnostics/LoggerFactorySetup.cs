using Akka.Actor.Setup;
using Microsoft.Extensions.Logging;

namespace Stellar.Store.Diagnostics;

/// <summary>Hands <see cref="AkkaLogForwarder"/> the logger factory of the store that made the actor system.</summary>
/// <remarks>Thread safety: immutable.</remarks>
internal sealed class LoggerFactorySetup(ILoggerFactory loggerFactory) : Setup
{
    public ILoggerFactory LoggerFactory { get; } = loggerFactory;
}
