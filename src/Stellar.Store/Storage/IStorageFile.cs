namespace Stellar.Store.Storage;

/// <summary>
/// One file of a store: appended at its end by a single writer, read at any position by any thread.
/// </summary>
/// <remarks>
/// Thread safety: one thread appends, flushes and truncates (the owner); any number of threads may call
/// <see cref="ReadAt"/> concurrently with it. <see cref="Append"/> hands the bytes to the operating system
/// before it returns (no user-space buffering), so they survive a crash of the process; only
/// <see cref="FlushToDisk"/> makes them survive a crash of the machine. Every failure surfaces as an
/// <see cref="IOException"/> (a full disk included), never as silent success.
/// </remarks>
internal interface IStorageFile : IDisposable
{
    /// <summary>The file's name inside the store directory, for error messages.</summary>
    string Name { get; }

    /// <summary>The file's length: every byte appended so far.</summary>
    long Length { get; }

    /// <summary>Appends <paramref name="data"/> at the end of the file, through to the operating system.</summary>
    void Append(ReadOnlySpan<byte> data);

    /// <summary>Reads up to <paramref name="buffer"/>'s length at <paramref name="offset"/>; returns the count read (short only at the end of the file).</summary>
    int ReadAt(long offset, Span<byte> buffer);

    /// <summary>Makes every appended byte durable on the device (fsync).</summary>
    void FlushToDisk();

    /// <summary>
    /// A hint: starts making the bytes appended so far durable in the background, so that a later
    /// <see cref="FlushToDisk"/> has less left to wait for. Promises nothing; only <see cref="FlushToDisk"/> does. A
    /// failure of the background work makes the next <see cref="FlushToDisk"/> fail. The default does nothing.
    /// </summary>
    void StartWriteback()
    {
    }

    /// <summary>Cuts the file to <paramref name="length"/> bytes and makes the new length durable.</summary>
    void Truncate(long length);
}
