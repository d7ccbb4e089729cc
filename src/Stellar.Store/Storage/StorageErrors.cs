namespace Stellar.Store.Storage;

/// <summary>
/// Recognizes and builds the <see cref="IOException"/> of a full disk, which .NET reports with the operating
/// system's own code in <see cref="Exception.HResult"/> rather than with a dedicated type.
/// </summary>
internal static class StorageErrors
{
    /// <summary>ENOSPC on Linux and macOS: .NET puts the raw errno in <see cref="Exception.HResult"/>.</summary>
    public const int EnospcHResult = 28;

    /// <summary>HRESULT_FROM_WIN32(ERROR_DISK_FULL) (0x70), as .NET reports it on Windows.</summary>
    public const int WindowsDiskFullHResult = unchecked((int)0x80070070);

    /// <summary>HRESULT_FROM_WIN32(ERROR_HANDLE_DISK_FULL) (0x27), the other disk-full code Windows uses.</summary>
    public const int WindowsHandleDiskFullHResult = unchecked((int)0x80070027);

    /// <summary>EWOULDBLOCK on Linux, which .NET reports when another open holds the file's <c>flock</c>.</summary>
    public const int LinuxWouldBlockHResult = 11;

    /// <summary>EWOULDBLOCK on macOS and the BSDs.</summary>
    public const int BsdWouldBlockHResult = 35;

    /// <summary>HRESULT_FROM_WIN32(ERROR_SHARING_VIOLATION) (0x20).</summary>
    public const int WindowsSharingViolationHResult = unchecked((int)0x80070020);

    /// <summary>HRESULT_FROM_WIN32(ERROR_LOCK_VIOLATION) (0x21).</summary>
    public const int WindowsLockViolationHResult = unchecked((int)0x80070021);

    /// <summary>The disk-full code of the operating system this process runs on.</summary>
    public static int DiskFullHResult => OperatingSystem.IsWindows() ? WindowsDiskFullHResult : EnospcHResult;

    /// <summary>Whether <paramref name="exception"/> reports a full disk on the operating system this process runs on.</summary>
    public static bool IsDiskFull(IOException exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        return OperatingSystem.IsWindows()
            ? exception.HResult is WindowsDiskFullHResult or WindowsHandleDiskFullHResult
            : exception.HResult == EnospcHResult;
    }

    /// <summary>
    /// Whether <paramref name="exception"/> says that another open of the file forbids this one (its share mode on
    /// Windows, its <c>flock</c> on Unix), as opposed to any other failure to open it, such as a full disk.
    /// </summary>
    public static bool IsSharingViolation(IOException exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        if (exception.GetType() != typeof(IOException))
        {
            return false;
        }

        if (OperatingSystem.IsWindows())
        {
            return exception.HResult is WindowsSharingViolationHResult or WindowsLockViolationHResult;
        }

        return exception.HResult == (OperatingSystem.IsLinux() ? LinuxWouldBlockHResult : BsdWouldBlockHResult);
    }

    /// <summary>An exception shaped like the one .NET throws when a write to <paramref name="name"/> meets a full disk.</summary>
    public static IOException DiskFull(string name) =>
        new($"No space left on device : '{name}'", DiskFullHResult);
}
