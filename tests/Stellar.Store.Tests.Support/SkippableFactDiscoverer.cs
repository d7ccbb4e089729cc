using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>Makes one <see cref="SkippableTestCase"/> for a <see cref="SkippableFactAttribute"/> method.</summary>
public sealed class SkippableFactDiscoverer : IXunitTestCaseDiscoverer
{
    private readonly IMessageSink _diagnosticMessageSink;

    /// <summary>Called by xunit with its diagnostic sink.</summary>
    public SkippableFactDiscoverer(IMessageSink diagnosticMessageSink) => _diagnosticMessageSink = diagnosticMessageSink;

    /// <inheritdoc/>
    public IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo factAttribute)
    {
        yield return new SkippableTestCase(_diagnosticMessageSink, discoveryOptions.MethodDisplayOrDefault(), discoveryOptions.MethodDisplayOptionsOrDefault(), testMethod);
    }
}
