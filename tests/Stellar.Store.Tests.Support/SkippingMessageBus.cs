using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>Passes messages on, turning a failure caused by <see cref="SkipTestException"/> into a skip with its reason.</summary>
internal sealed class SkippingMessageBus : IMessageBus
{
    private readonly IMessageBus _inner;

    public SkippingMessageBus(IMessageBus inner) => _inner = inner;

    /// <summary>How many failures were reported as skips instead.</summary>
    public int Skipped { get; private set; }

    public bool QueueMessage(IMessageSinkMessage message)
    {
        if (message is ITestFailed failed
            && failed.ExceptionTypes.FirstOrDefault() == typeof(SkipTestException).FullName
            && failed.Messages.FirstOrDefault() is { } text
            && text.StartsWith(SkipTestException.DynamicSkipToken, StringComparison.Ordinal))
        {
            Skipped++;
            return _inner.QueueMessage(new TestSkipped(failed.Test, text[SkipTestException.DynamicSkipToken.Length..]));
        }

        return _inner.QueueMessage(message);
    }

    // The inner bus belongs to xunit, which disposes it.
    public void Dispose()
    {
    }
}
