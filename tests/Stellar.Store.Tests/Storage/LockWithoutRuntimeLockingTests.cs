using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>
/// The store lock when the .NET runtime's own file locking is switched off (<c>DOTNET_SYSTEM_IO_DISABLEFILELOCKING</c>),
/// as a host may do for unrelated reasons: the lock must come from the operating system, not from a runtime switch.
/// </summary>
public sealed class LockWithoutRuntimeLockingTests : IDisposable
{
    // Generous: the child is a fresh .NET process on a machine that may be busy building.
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromSeconds(60);

    private static readonly Dictionary<string, string> RuntimeLockingOff = new(StringComparer.Ordinal)
    {
        ["DOTNET_SYSTEM_IO_DISABLEFILELOCKING"] = "1",
    };

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task AcquireLock_WhileChildWithRuntimeLockingOffHoldsIt_ThrowsStoreLockedException()
    {
        using var child = TestHostProcess.StartWithEnvironment(RuntimeLockingOff, "lock", _directory.Path);
        await child.WaitForLineAsync("locked", StartTimeout);

        var error = Assert.Throws<StoreLockedException>(() => new FileStorage(_directory.Path).AcquireLock());

        Assert.Equal(Path.GetFullPath(_directory.Path), error.Path);
    }

    [Fact]
    public async Task OpenAsync_WhileChildWithRuntimeLockingOffHoldsLock_ThrowsStoreLockedException()
    {
        using var child = TestHostProcess.StartWithEnvironment(RuntimeLockingOff, "lock", _directory.Path);
        await child.WaitForLineAsync("locked", StartTimeout);

        await Assert.ThrowsAsync<StoreLockedException>(() => StellarStore.OpenAsync(_directory.Path));
    }

    [Fact]
    public async Task LockVerb_WithRuntimeLockingOffWhileThisProcessHoldsLock_ExitsWithStoreLocked()
    {
        using var held = new FileStorage(_directory.Path).AcquireLock();
        using var child = TestHostProcess.StartWithEnvironment(RuntimeLockingOff, "lock", _directory.Path);

        int exitCode = await child.WaitForExitAsync(ExitTimeout);

        // 3 is ExitCodes.StoreLocked in the TestHost, which the tests only run, never load.
        Assert.True(exitCode == 3, $"exit code {exitCode}, standard error: {child.Errors}");
    }

    [Fact]
    public async Task AcquireLock_SecondInSameProcessWithRuntimeLockingOff_ThrowsStoreLockedException()
    {
        using var child = TestHostProcess.StartWithEnvironment(RuntimeLockingOff, "lock-twice", _directory.Path);

        var second = await child.ReadLineAsync(StartTimeout);

        Assert.True(second == "second refused", $"the child printed '{second}', standard error: {child.Errors}");
    }

    [Fact]
    public async Task AcquireLock_AfterChildWithRuntimeLockingOffIsKilled_Succeeds()
    {
        using var child = TestHostProcess.StartWithEnvironment(RuntimeLockingOff, "lock", _directory.Path);
        await child.WaitForLineAsync("locked", StartTimeout);
        Assert.Throws<StoreLockedException>(() => new FileStorage(_directory.Path).AcquireLock());

        // SIGKILL: the child runs no code on the way out, so only the operating system can release the lock.
        child.Kill();

        using var held = new FileStorage(_directory.Path).AcquireLock();
    }
}
