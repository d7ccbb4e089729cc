using Xunit.Sdk;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// A fact that may call <see cref="Skip.Because"/> when the machine cannot run it: the runner then reports it as
/// skipped with that reason, never as passed. xunit 2 has no dynamic skip of its own.
/// </summary>
[XunitTestCaseDiscoverer("Stellar.Store.Tests.Support." + nameof(SkippableFactDiscoverer), "Stellar.Store.Tests.Support")]
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class SkippableFactAttribute : FactAttribute
{
}
