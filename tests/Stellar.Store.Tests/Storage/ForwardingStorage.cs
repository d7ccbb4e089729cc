using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>
/// Passes every call to an inner storage: the base of the tests' wrappers over real files, which override only the
/// calls they watch or hold, so that nothing else about the storage is faked.
/// </summary>
internal abstract class ForwardingStorage(IStorage inner) : IStorage
{
    public string Location => inner.Location;

    public virtual IStorageFile Open(string name) => inner.Open(name);

    public virtual IStorageFile OpenRead(string name) => inner.OpenRead(name);

    public bool Exists(string name) => inner.Exists(name);

    public IReadOnlyList<string> List() => inner.List();

    public virtual void Delete(string name) => inner.Delete(name);

    public byte[] ReadAllBytes(string name) => inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content) => inner.ReplaceAtomically(name, content);

    public void Rename(string from, string to) => inner.Rename(from, to);

    public IDisposable AcquireLock() => inner.AcquireLock();
}
