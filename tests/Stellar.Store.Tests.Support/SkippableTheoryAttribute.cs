using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>A theory whose rows may call <see cref="Skip.Because"/>; each such row is reported as skipped with the reason.</summary>
[XunitTestCaseDiscoverer("Stellar.Store.Tests.Support." + nameof(SkippableTheoryDiscoverer), "Stellar.Store.Tests.Support")]
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class SkippableTheoryAttribute : TheoryAttribute
{
}
