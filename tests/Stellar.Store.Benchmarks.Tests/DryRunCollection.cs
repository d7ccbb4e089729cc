namespace Stellar.Store.Benchmarks.Tests;

/// <summary>
/// The test classes that switch the process into the dry mode (an environment variable, which one test briefly
/// clears) run one after another, never beside each other: a class running while that variable is cleared would
/// run a real benchmark.
/// </summary>
public static class DryRunCollection
{
    /// <summary>The collection's name.</summary>
    public const string Name = "dry-run";
}
