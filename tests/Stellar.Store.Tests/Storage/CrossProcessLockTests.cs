using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>The store lock between processes, with a real child process that holds it until killed.</summary>
public sealed class CrossProcessLockTests : IDisposable
{
    // Generous: the child is a fresh .NET process on a machine that may be busy building.
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(60);

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task AcquireLock_WhileChildProcessHoldsIt_ThrowsStoreLockedException()
    {
        using var child = TestHostProcess.Start("lock", _directory.Path);
        await child.WaitForLineAsync("locked", StartTimeout);

        var error = Assert.Throws<StoreLockedException>(() => new FileStorage(_directory.Path).AcquireLock());

        Assert.Equal(Path.GetFullPath(_directory.Path), error.Path);
    }

    [Fact]
    public async Task AcquireLock_AfterChildProcessIsKilled_Succeeds()
    {
        using var child = TestHostProcess.Start("lock", _directory.Path);
        await child.WaitForLineAsync("locked", StartTimeout);
        Assert.Throws<StoreLockedException>(() => new FileStorage(_directory.Path).AcquireLock());

        // SIGKILL: the child runs no code on the way out, so only the operating system can release the lock.
        child.Kill();

        using var held = new FileStorage(_directory.Path).AcquireLock();
    }

    [Fact]
    public async Task LockVerb_WhileThisProcessHoldsLock_ExitsWithStoreLocked()
    {
        using var held = new FileStorage(_directory.Path).AcquireLock();
        using var child = TestHostProcess.Start("lock", _directory.Path);

        int exitCode = await child.WaitForExitAsync(ExitTimeout);

        // 3 is ExitCodes.StoreLocked in the TestHost, which the tests only run, never load.
        Assert.True(exitCode == 3, $"exit code {exitCode}, standard error: {child.Errors}");
        Assert.Contains("already open", child.Errors, StringComparison.Ordinal);
    }
}
