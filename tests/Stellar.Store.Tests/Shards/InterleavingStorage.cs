using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// Real file storage that runs a test's callback just before or after chosen operations, to place a reader's
/// step at an exact point of a compaction (a race that a stress run hits only now and then). Nothing is faked:
/// every operation reaches the files.
/// </summary>
internal sealed class InterleavingStorage(IStorage inner) : IStorage
{
    /// <summary>Runs before each read-only open, with the file's name.</summary>
    public Action<string>? BeforeOpenRead { get; set; }

    /// <summary>Runs after each read-only open succeeded, with the file's name.</summary>
    public Action<string>? AfterOpenRead { get; set; }

    /// <summary>Runs before each delete, with the file's name.</summary>
    public Action<string>? BeforeDelete { get; set; }

    public string Location => inner.Location;

    public IStorageFile Open(string name) => inner.Open(name);

    public IStorageFile OpenRead(string name)
    {
        BeforeOpenRead?.Invoke(name);
        var file = inner.OpenRead(name);
        AfterOpenRead?.Invoke(name);
        return file;
    }

    public bool Exists(string name) => inner.Exists(name);

    public IReadOnlyList<string> List() => inner.List();

    public void Delete(string name)
    {
        BeforeDelete?.Invoke(name);
        inner.Delete(name);
    }

    public byte[] ReadAllBytes(string name) => inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content) => inner.ReplaceAtomically(name, content);

    public void Rename(string from, string to) => inner.Rename(from, to);

    public IDisposable AcquireLock() => inner.AcquireLock();
}
