namespace Stellar.Store.Storage;

/// <summary>
/// Creates the store's directory and files readable and writable by their owner only (0700 and 0600 on Unix), so
/// that other local users cannot read an unencrypted store. Thread safety: stateless.
/// </summary>
/// <remarks>
/// The modes apply only to what is created: an existing directory or file keeps the mode it has, since changing a
/// user's own choice behind their back (a shared group directory, say) is not the store's call. The process umask
/// can only remove bits. On Windows files inherit the directory's access control list and nothing is set here.
/// </remarks>
internal static class PrivateFiles
{
    /// <summary>The mode of a directory the store creates: rwx for the owner only.</summary>
    public const UnixFileMode DirectoryMode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    /// <summary>The mode of a file the store creates: rw for the owner only.</summary>
    public const UnixFileMode FileMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;

    /// <summary>Creates <paramref name="path"/> and its missing parents with <see cref="DirectoryMode"/>.</summary>
    public static void CreateDirectory(string path)
    {
        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(path);
        }
        else
        {
            Directory.CreateDirectory(path, DirectoryMode);
        }
    }

    /// <summary>
    /// Opens <paramref name="path"/> unbuffered, creating it with <see cref="FileMode"/> when <paramref name="mode"/>
    /// may create it. The caller uses the stream's <see cref="FileStream.SafeFileHandle"/> for positional I/O and
    /// disposes the stream, which closes the handle.
    /// </summary>
    public static FileStream Open(string path, System.IO.FileMode mode, FileAccess access, FileShare share)
    {
        // File.OpenHandle takes no creation mode; FileStreamOptions does, and with no buffer the stream adds nothing
        // between the handle and the disk.
        var options = new FileStreamOptions { Mode = mode, Access = access, Share = share, BufferSize = 0 };
        if (!OperatingSystem.IsWindows() && mode is not (System.IO.FileMode.Open or System.IO.FileMode.Truncate))
        {
            options.UnixCreateMode = FileMode;
        }

        return new FileStream(path, options);
    }
}
