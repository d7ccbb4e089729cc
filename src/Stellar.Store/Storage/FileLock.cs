using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Stellar.Store.Storage;

/// <summary>
/// An exclusive lock on a store's lock file, held by the operating system until <see cref="Dispose"/> or the death
/// of the process. Thread safety: <see cref="Dispose"/> may be called from any thread, more than once.
/// </summary>
/// <remarks>
/// <para>On Unix the lock is <c>flock(LOCK_EX | LOCK_NB)</c> on the file's own descriptor, called here directly, because
/// the runtime's locking of <see cref="FileShare.None"/> opens is an emulation that a switch
/// (<c>DOTNET_SYSTEM_IO_DISABLEFILELOCKING</c>) turns off. <c>flock</c> rather than an open-file-description lock
/// (<c>fcntl(F_OFD_SETLK)</c>): it exists on Linux and macOS alike, it belongs to the open file description just as
/// an OFD lock does (so two opens in one process conflict, unlike classic <c>fcntl</c> locks), and it is the lock the
/// runtime's emulation takes, so a process running an older build of the store, which relies on the emulation,
/// still conflicts with this one; Linux keeps <c>flock</c> and <c>fcntl</c> locks apart, so an OFD lock would not.</para>
/// <para>On Windows the <see cref="FileShare.None"/> share mode is enforced by the kernel and needs nothing more.</para>
/// <para>Network file systems are not supported: NFS and SMB emulate or drop these locks.</para>
/// </remarks>
internal sealed class FileLock : IDisposable
{
    private readonly FileStream _file;

    private FileLock(FileStream file) => _file = file;

    /// <summary>Opens or creates the lock file at <paramref name="path"/> and locks it for the store at <paramref name="directory"/>.</summary>
    /// <exception cref="StoreLockedException">Another open file description holds the lock, in this process or another.</exception>
    /// <exception cref="IOException">The file cannot be opened or the file system refuses to lock it.</exception>
    public static FileLock Acquire(string path, string directory)
    {
        FileStream file;
        try
        {
            file = PrivateFiles.Open(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException ex) when (StorageErrors.IsSharingViolation(ex))
        {
            throw new StoreLockedException(directory, ex);
        }

        try
        {
            if (!OperatingSystem.IsWindows())
            {
                LockExclusively(file.SafeFileHandle, path, directory);
            }

            return new FileLock(file);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>Releases the lock (closing the descriptor drops the <c>flock</c>).</summary>
    public void Dispose() => _file.Dispose();

    private static void LockExclusively(SafeFileHandle handle, string path, string directory)
    {
        bool added = false;
        handle.DangerousAddRef(ref added);
        try
        {
            int fd = (int)handle.DangerousGetHandle();
            int result;
            do
            {
                result = NativeMethods.Flock(fd, NativeMethods.LockExclusive | NativeMethods.LockNonBlocking);
            }
            while (result < 0 && Marshal.GetLastPInvokeError() == NativeMethods.Eintr);

            if (result < 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                var error = new IOException($"Could not lock '{path}': {Marshal.GetPInvokeErrorMessage(errno)}", errno);
                if (errno == NativeMethods.WouldBlock)
                {
                    throw new StoreLockedException(directory, error);
                }

                // Refusing to open is the only safe answer when the file system cannot lock: without the lock two
                // owners could append to one shard.
                throw error;
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    private static class NativeMethods
    {
        public const int LockExclusive = 2;
        public const int LockNonBlocking = 4;
        public const int Eintr = 4;

        // EWOULDBLOCK: 11 on Linux, 35 on macOS and the BSDs.
        public static readonly int WouldBlock = OperatingSystem.IsLinux() ? StorageErrors.LinuxWouldBlockHResult : StorageErrors.BsdWouldBlockHResult;

        [DllImport("libc", EntryPoint = "flock", SetLastError = true)]
        public static extern int Flock(int fd, int operation);
    }
}
