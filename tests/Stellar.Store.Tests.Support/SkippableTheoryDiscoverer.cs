using Xunit.Abstractions;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// Makes a <see cref="SkippableTestCase"/> per data row of a <see cref="SkippableTheoryAttribute"/> method. Rows
/// that xunit cannot enumerate at discovery (non-serializable data) run as an ordinary theory and cannot skip.
/// </summary>
public sealed class SkippableTheoryDiscoverer : TheoryDiscoverer
{
    /// <summary>Called by xunit with its diagnostic sink.</summary>
    public SkippableTheoryDiscoverer(IMessageSink diagnosticMessageSink)
        : base(diagnosticMessageSink)
    {
    }

    /// <inheritdoc/>
    protected override IEnumerable<IXunitTestCase> CreateTestCasesForDataRow(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo theoryAttribute, object[] dataRow)
    {
        yield return new SkippableTestCase(DiagnosticMessageSink, discoveryOptions.MethodDisplayOrDefault(), discoveryOptions.MethodDisplayOptionsOrDefault(), testMethod, dataRow);
    }
}
