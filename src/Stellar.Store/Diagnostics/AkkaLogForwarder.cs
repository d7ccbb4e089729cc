using Akka.Actor;
using Akka.Dispatch;
using Akka.Event;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Stellar.Store.Diagnostics;

/// <summary>
/// The Akka.NET logger of an actor system that a store made for itself and given a logger factory (see
/// <see cref="LoggerFactorySetup"/>): forwards every log event to the category <see cref="StoreTelemetry.AkkaLoggerCategory"/>
/// as <see cref="StoreLogEvents.ActorSystemLog"/>, at the matching level. Akka creates it by the type name in its
/// <c>akka.loggers</c> setting.
/// </summary>
/// <remarks>Thread safety: an actor; Akka runs it one message at a time.</remarks>
internal sealed class AkkaLogForwarder : ReceiveActor, IRequiresMessageQueue<ILoggerMessageQueueSemantics>
{
    /// <summary>The value of <c>akka.loggers</c> that makes an actor system log through this forwarder.</summary>
    public static readonly string ConfigName = $"{typeof(AkkaLogForwarder).FullName}, {typeof(AkkaLogForwarder).Assembly.GetName().Name}";

    private readonly ILogger _logger;

    public AkkaLogForwarder()
    {
        var factory = Context.System.Settings.Setup.Get<LoggerFactorySetup>();
        _logger = factory.HasValue ? factory.Value.LoggerFactory.CreateLogger(StoreTelemetry.AkkaLoggerCategory) : NullLogger.Instance;
        Receive<InitializeLogger>(_ => Sender.Tell(new LoggerInitialized()));
        Receive<LogEvent>(Forward);
    }

    private void Forward(LogEvent log)
    {
        var level = log.LogLevel() switch
        {
            Akka.Event.LogLevel.DebugLevel => Microsoft.Extensions.Logging.LogLevel.Debug,
            Akka.Event.LogLevel.InfoLevel => Microsoft.Extensions.Logging.LogLevel.Information,
            Akka.Event.LogLevel.WarningLevel => Microsoft.Extensions.Logging.LogLevel.Warning,
            _ => Microsoft.Extensions.Logging.LogLevel.Error,
        };

        if (_logger.IsEnabled(level))
        {
            StoreLog.ActorSystemLog(_logger, level, log.LogSource, log.Message, log.Cause);
        }
    }
}
