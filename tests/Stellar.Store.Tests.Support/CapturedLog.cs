using Microsoft.Extensions.Logging;

namespace Stellar.Store.Tests.Support;

/// <summary>One event a <see cref="CapturingLoggerProvider"/> captured: where and how it was logged, and its structured values.</summary>
public sealed record CapturedLog(string Category, LogLevel Level, EventId EventId, string Message, Exception? Exception, IReadOnlyDictionary<string, object?> Values);
