namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>The store directory of a run: the one given, or a fresh temporary one that is deleted at the end.</summary>
internal sealed class DataDirectory : IDisposable
{
    private readonly bool _temporary;

    public DataDirectory(string? given)
    {
        _temporary = given is null;
        Path = given is null
            ? System.IO.Path.Combine(System.IO.Path.GetTempPath(), "stellar-gameserver-" + Guid.NewGuid().ToString("n"))
            : System.IO.Path.GetFullPath(given);
    }

    public string Path { get; }

    /// <summary>How it is described in the output.</summary>
    public string Describe() => _temporary ? $"{Path} (temporary, deleted at exit)" : Path;

    /// <summary>Bytes of every file in the directory now.</summary>
    public long SizeOnDisk()
    {
        try
        {
            return new DirectoryInfo(Path).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0; // the directory is changing under us; the next reading will do
        }
    }

    public int FileCount() => Directory.Exists(Path) ? Directory.GetFiles(Path).Length : 0;

    public void Dispose()
    {
        if (_temporary && Directory.Exists(Path))
        {
            Directory.Delete(Path, recursive: true);
        }
    }
}
