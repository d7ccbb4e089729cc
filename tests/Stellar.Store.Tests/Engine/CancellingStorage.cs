using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// Real storage that cancels a token the moment a compaction opens its output file, so a test cancels a
/// <see cref="Collection{TKey, TValue}.CompactAsync"/> in the middle of its copy, every time, without a timer.
/// </summary>
internal sealed class CancellingStorage(IStorage inner, CancellationTokenSource cancel) : IStorage
{
    public string Location => inner.Location;

    public IStorageFile Open(string name)
    {
        var file = inner.Open(name);
        if (name.EndsWith(".compacting", StringComparison.Ordinal))
        {
            cancel.Cancel();
        }

        return file;
    }

    public IStorageFile OpenRead(string name) => inner.OpenRead(name);

    public bool Exists(string name) => inner.Exists(name);

    public IReadOnlyList<string> List() => inner.List();

    public void Delete(string name) => inner.Delete(name);

    public byte[] ReadAllBytes(string name) => inner.ReadAllBytes(name);

    public void ReplaceAtomically(string name, ReadOnlySpan<byte> content) => inner.ReplaceAtomically(name, content);

    public void Rename(string from, string to) => inner.Rename(from, to);

    public IDisposable AcquireLock() => inner.AcquireLock();
}
