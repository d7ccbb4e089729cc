using System.Runtime.InteropServices;
using System.Text;

namespace Stellar.Store.Storage;

/// <summary>
/// Makes a directory's entries (creations, renames, deletions) durable. On Unix a rename or a new file is only
/// in the directory's page cache until the directory itself is fsync'ed; .NET cannot open a directory
/// (<see cref="File.OpenHandle"/> throws <see cref="UnauthorizedAccessException"/> for one), so this calls
/// libc directly. NTFS journals its metadata, and Windows cannot flush a directory handle, so there it does nothing.
/// </summary>
internal static class DirectorySync
{
    /// <summary>Fsyncs the directory at <paramref name="path"/>; an <see cref="IOException"/> when the OS refuses.</summary>
    public static void Flush(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        // A NUL-terminated UTF-8 path by hand: the analyzers reject string marshalling to libc (CA2101) even when
        // it is spelled out.
        var pathBytes = new byte[Encoding.UTF8.GetByteCount(path) + 1];
        Encoding.UTF8.GetBytes(path, pathBytes);

        int fd;
        do
        {
            fd = NativeMethods.Open(pathBytes, NativeMethods.ReadOnly | NativeMethods.CloseOnExec);
        }
        while (fd < 0 && Marshal.GetLastPInvokeError() == NativeMethods.Eintr);

        if (fd < 0)
        {
            throw Failure("open", path, Marshal.GetLastPInvokeError());
        }

        try
        {
            int result;
            do
            {
                result = NativeMethods.Fsync(fd);
            }
            while (result < 0 && Marshal.GetLastPInvokeError() == NativeMethods.Eintr);

            // Some file systems cannot fsync a directory and say so with EINVAL; there is nothing more to make
            // durable on them, so that alone is not a failure. Every other error is.
            if (result < 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                if (errno != NativeMethods.Einval)
                {
                    throw Failure("fsync", path, errno);
                }
            }
        }
        finally
        {
            // A failed close of a read-only descriptor loses nothing; retrying it on Linux could close another
            // thread's freshly opened descriptor.
            _ = NativeMethods.Close(fd);
        }
    }

    private static IOException Failure(string call, string path, int errno) =>
        new($"Could not {call} directory '{path}' to make its entries durable: {Marshal.GetPInvokeErrorMessage(errno)}", errno);

    private static class NativeMethods
    {
        public const int ReadOnly = 0;
        public const int Eintr = 4;
        public const int Einval = 22;

        // O_CLOEXEC keeps the descriptor out of child processes started meanwhile; its value differs by OS.
        public static readonly int CloseOnExec = OperatingSystem.IsLinux() ? 0x80000 : OperatingSystem.IsMacOS() ? 0x1000000 : 0;

        [DllImport("libc", EntryPoint = "open", SetLastError = true)]
        public static extern int Open(byte[] path, int flags);

        [DllImport("libc", EntryPoint = "fsync", SetLastError = true)]
        public static extern int Fsync(int fd);

        [DllImport("libc", EntryPoint = "close", SetLastError = true)]
        public static extern int Close(int fd);
    }
}
