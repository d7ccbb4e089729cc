using System.Runtime.InteropServices;

namespace Stellar.Store.Storage;

/// <summary>
/// Hard links: a second name for a file's bytes, made without copying them. A checkpoint shares a sealed shard with
/// the live store this way, since neither ever changes a sealed shard's bytes.
/// </summary>
/// <remarks>Thread safety: stateless; any thread.</remarks>
internal static class HardLink
{
    /// <summary>
    /// Gives <paramref name="existing"/> the second name <paramref name="link"/>, or, where the file system cannot link
    /// (FAT and exFAT drives, another volume), copies it there. Returns whether it linked. Either way the new name's
    /// bytes are durable only once its directory is flushed (a copy is flushed here).
    /// </summary>
    /// <exception cref="IOException"><paramref name="link"/> exists, or the link or the copy failed.</exception>
    public static bool LinkOrCopy(string existing, string link)
    {
        if (TryLink(existing, link))
        {
            return true;
        }

        using (var source = new FileStream(existing, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete))
        using (var target = PrivateFiles.Open(link, FileMode.CreateNew, FileAccess.Write, FileShare.None))
        {
            source.CopyTo(target, 1 << 20);
            target.Flush(flushToDisk: true);
        }

        return false;
    }

    /// <summary>Links, or returns false when the file system refuses links as such (not for a missing file or a name taken).</summary>
    private static bool TryLink(string existing, string link)
    {
        if (OperatingSystem.IsWindows())
        {
            if (NativeMethods.CreateHardLink(link, existing, IntPtr.Zero))
            {
                return true;
            }

            var error = Marshal.GetLastPInvokeError();
            return error is NativeMethods.ErrorInvalidFunction or NativeMethods.ErrorNotSameDevice or NativeMethods.ErrorNotSupported
                ? false
                : throw Failure(existing, link, error);
        }

        if (NativeMethods.Link(NativePath(existing), NativePath(link)) == 0)
        {
            return true;
        }

        var errno = Marshal.GetLastPInvokeError();
        return errno == NativeMethods.Eperm || errno == NativeMethods.Exdev || errno == NativeMethods.Enotsup || errno == NativeMethods.Eopnotsupp || errno == NativeMethods.Emlink
            ? false
            : throw Failure(existing, link, errno);
    }

    /// <summary>A path as the C library takes it: UTF-8, ending with a zero byte.</summary>
    private static byte[] NativePath(string path) => System.Text.Encoding.UTF8.GetBytes(path + "\0");

    private static IOException Failure(string existing, string link, int error) =>
        new($"Could not link '{link}' to '{existing}': {Marshal.GetPInvokeErrorMessage(error)}", error);

    private static class NativeMethods
    {
        public const int Eperm = 1;
        public const int Exdev = 18;
        public const int Emlink = 31;
        public static readonly int Enotsup = OperatingSystem.IsMacOS() ? 45 : 95;
        public static readonly int Eopnotsupp = OperatingSystem.IsMacOS() ? 102 : 95;

        public const int ErrorInvalidFunction = 1;
        public const int ErrorNotSameDevice = 17;
        public const int ErrorNotSupported = 50;

        [DllImport("libc", EntryPoint = "link", SetLastError = true)]
        public static extern int Link(byte[] existing, byte[] link);

        [DllImport("kernel32", EntryPoint = "CreateHardLinkW", SetLastError = true, CharSet = CharSet.Unicode)]
        [return: MarshalAs(UnmanagedType.Bool)]
        public static extern bool CreateHardLink(string link, string existing, IntPtr securityAttributes);
    }
}
