using System.Diagnostics.CodeAnalysis;

namespace Stellar.Store.Tests.Support;

/// <summary>Ends a <see cref="SkippableFactAttribute"/> or <see cref="SkippableTheoryAttribute"/> test as skipped.</summary>
public static class Skip
{
    /// <summary>Stops the test here; the runner reports it as skipped with <paramref name="reason"/>.</summary>
    [DoesNotReturn]
    public static void Because(string reason) => throw new SkipTestException(reason);
}
