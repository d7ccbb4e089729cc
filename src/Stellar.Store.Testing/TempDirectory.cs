namespace Stellar.Store.Testing;

/// <summary>
/// A fresh, empty directory under the system's temporary folder for one test, deleted with everything in it when
/// disposed: give each test its own, so that tests running in parallel never share a store.
/// </summary>
/// <remarks>Thread safety: the members may be called from any thread; dispose once the test is done with it.</remarks>
public sealed class TempDirectory : IDisposable
{
    /// <summary>Creates a directory with a new unique name.</summary>
    public TempDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "stellar-tests", Guid.NewGuid().ToString("n"));
        Directory.CreateDirectory(Path);
    }

    /// <summary>The directory's full path.</summary>
    public string Path { get; }

    /// <summary>The path of <paramref name="name"/> inside the directory (not created), such as a second store's.</summary>
    public string Sub(string name) => System.IO.Path.Combine(Path, name);

    /// <summary>Deletes the directory and everything in it, as far as the operating system lets it.</summary>
    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // A child process, killed or not, may hold a file for a moment; the system's temp cleaner gets it later.
        }
    }
}
