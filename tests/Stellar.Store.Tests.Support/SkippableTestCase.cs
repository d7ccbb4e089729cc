using System.ComponentModel;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>An xunit test case that reports a <see cref="SkipTestException"/> as a skip with its reason, not a failure.</summary>
public sealed class SkippableTestCase : XunitTestCase
{
    /// <summary>For xunit's deserializer only.</summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [Obsolete("Called by the deserializer; not for use in code.")]
    public SkippableTestCase()
    {
    }

    /// <summary>Creates the test case for <paramref name="testMethod"/> with the given arguments (a theory's row).</summary>
    public SkippableTestCase(IMessageSink diagnosticMessageSink, TestMethodDisplay defaultMethodDisplay, TestMethodDisplayOptions defaultMethodDisplayOptions, ITestMethod testMethod, object[]? testMethodArguments = null)
        : base(diagnosticMessageSink, defaultMethodDisplay, defaultMethodDisplayOptions, testMethod, testMethodArguments)
    {
    }

    /// <inheritdoc/>
    public override async Task<RunSummary> RunAsync(IMessageSink diagnosticMessageSink, IMessageBus messageBus, object[] constructorArguments, ExceptionAggregator aggregator, CancellationTokenSource cancellationTokenSource)
    {
        using var skipping = new SkippingMessageBus(messageBus);
        var summary = await base.RunAsync(diagnosticMessageSink, skipping, constructorArguments, aggregator, cancellationTokenSource).ConfigureAwait(false);
        summary.Failed -= skipping.Skipped;
        summary.Skipped += skipping.Skipped;
        return summary;
    }
}
