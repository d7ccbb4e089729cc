using Stellar.Store.Tests.Storage;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Writes, and an index declared with the collection's load, from a game whose thread pool threads all wait
/// synchronously for the store (sync over async), with the pool capped so that it cannot grow its way out, to a store
/// whose writers have threads of their own (<see cref="StoreOptions.DedicatedThreads"/>): every step of the store a
/// write or the index waits for must run elsewhere than on the pool. In a process of its own (Stellar.Store.TestHost's <c>starved-pool</c> verb), since the cap is the process's.
/// </summary>
public sealed class StarvedPoolTests : IDisposable
{
    // Generous: the child is a fresh .NET process on a machine that may be busy. The verb itself takes well under a
    // second when nothing waits for the pool; a wait for the pool is a hang, not a delay.
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(120);

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task WritesAndFlushes_WhileEveryPoolThreadWaitsForThemSynchronously_Complete()
    {
        using var child = TestHostProcess.Start("starved-pool", _directory.Path);

        var exitCode = await child.WaitForExitAsync(ExitTimeout);

        // 0 is ExitCodes.Success in the TestHost, which the tests only run, never load.
        Assert.True(exitCode == 0, $"exit code {exitCode}, standard error: {child.Errors}");
        Assert.Contains("starved pool: done", child.Output, StringComparison.Ordinal);
    }
}
