using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>Passes every call to an inner file: the base of the tests' file wrappers, which override what they hold.</summary>
internal abstract class ForwardingFile(IStorageFile inner) : IStorageFile
{
    public string Name => inner.Name;

    public long Length => inner.Length;

    public virtual void Append(ReadOnlySpan<byte> data) => inner.Append(data);

    public virtual int ReadAt(long offset, Span<byte> buffer) => inner.ReadAt(offset, buffer);

    public virtual void FlushToDisk() => inner.FlushToDisk();

    public void Truncate(long length) => inner.Truncate(length);

    public void Dispose() => inner.Dispose();
}
