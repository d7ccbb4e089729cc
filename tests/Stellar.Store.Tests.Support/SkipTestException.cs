namespace Stellar.Store.Tests.Support;

/// <summary>
/// Thrown by <see cref="Skip.Because"/>. The message carries xunit's dynamic-skip prefix as well, so a runner that
/// understands it (xunit 3) reports a skip even where this assembly's test case is not in use.
/// </summary>
public sealed class SkipTestException : Exception
{
    /// <summary>The prefix xunit gives a failure message that means "skipped, for the reason that follows".</summary>
    public const string DynamicSkipToken = "$XunitDynamicSkip$";

    /// <summary>Creates the exception for <paramref name="reason"/>.</summary>
    public SkipTestException(string reason)
        : base(DynamicSkipToken + reason)
    {
        Reason = reason;
    }

    /// <summary>Creates the exception with no reason given.</summary>
    public SkipTestException()
        : this("no reason given")
    {
    }

    /// <summary>Creates the exception for <paramref name="reason"/>, wrapping <paramref name="innerException"/>.</summary>
    public SkipTestException(string reason, Exception innerException)
        : base(DynamicSkipToken + reason, innerException)
    {
        Reason = reason;
    }

    /// <summary>Why the test could not run here.</summary>
    public string Reason { get; } = "";
}
