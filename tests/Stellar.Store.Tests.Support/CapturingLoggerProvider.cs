using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// A logger provider that keeps every event at every level, with its structured values, for tests to assert on.
/// Wrap it in a factory with <see cref="CreateFactory"/>, or add it to a host's logging.
/// </summary>
/// <remarks>Thread safety: loggers may log from any thread; <see cref="Logs"/> is a snapshot.</remarks>
public sealed class CapturingLoggerProvider : ILoggerProvider
{
    private readonly ConcurrentQueue<CapturedLog> _logs = new();

    /// <summary>Everything logged so far, in order.</summary>
    public IReadOnlyList<CapturedLog> Logs => _logs.ToArray();

    /// <summary>The events logged so far with event id <paramref name="id"/>.</summary>
    public IReadOnlyList<CapturedLog> WithId(int id) => Logs.Where(l => l.EventId.Id == id).ToList();

    /// <summary>A logger factory whose only provider is this one.</summary>
    public ILoggerFactory CreateFactory() => new Factory(this);

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(CapturingLoggerProvider provider, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var values = state is IEnumerable<KeyValuePair<string, object?>> pairs
                ? pairs.GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.First().Value)
                : new Dictionary<string, object?>();
            provider._logs.Enqueue(new CapturedLog(category, logLevel, eventId, formatter(state, exception), exception, values));
        }
    }

    private sealed class Factory(CapturingLoggerProvider provider) : ILoggerFactory
    {
        public void AddProvider(ILoggerProvider provider)
        {
            throw new NotSupportedException("A capturing factory has one provider.");
        }

        public ILogger CreateLogger(string categoryName) => provider.CreateLogger(categoryName);

        public void Dispose()
        {
        }
    }
}
