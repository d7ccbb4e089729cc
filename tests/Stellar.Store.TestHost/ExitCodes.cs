namespace Stellar.Store.TestHost;

/// <summary>The exit codes of every verb, so that a parent test can tell a refusal from a crash.</summary>
internal static class ExitCodes
{
    /// <summary>The verb did what it was asked.</summary>
    public const int Success = 0;

    /// <summary>The store was locked by another holder (<see cref="StoreLockedException"/>).</summary>
    public const int StoreLocked = 3;

    /// <summary>A step of the workload failed (a rejection or an exception): the store broke a promise.</summary>
    public const int WorkloadFailed = 4;

    /// <summary>Unknown verb or wrong arguments (EX_USAGE).</summary>
    public const int Usage = 64;
}
