using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>
/// The content of one in-memory file, shared by every handle open on it: the bytes appended so far, and how many
/// of them a crash of the machine would keep (the length at the last flush).
/// </summary>
/// <remarks>
/// Thread safety: every member takes the instance's lock; this is a test double, where being obviously right
/// matters more than a lock per call. A crash marks the instance dead, after which every member but
/// <see cref="Kill"/> throws <see cref="IOException"/>, as the handles of a process that no longer exists would.
/// </remarks>
internal sealed class MemoryFileData
{
    private readonly object _gate = new();
    private byte[] _bytes;
    private long _length;
    private long _durableLength;
    private bool _dead;

    /// <summary>Creates an empty file that no flush has made durable yet.</summary>
    public MemoryFileData()
        : this([], 0, 0)
    {
    }

    private MemoryFileData(byte[] bytes, long length, long durableLength)
    {
        _bytes = bytes;
        _length = length;
        _durableLength = durableLength;
    }

    /// <summary>Every byte appended so far.</summary>
    public long Length
    {
        get
        {
            lock (_gate)
            {
                return _length;
            }
        }
    }

    /// <summary>Creates a file whose whole <paramref name="content"/> is already durable, as a replaced file is.</summary>
    public static MemoryFileData Durable(ReadOnlySpan<byte> content) => new(content.ToArray(), content.Length, content.Length);

    /// <summary>Appends <paramref name="data"/> at the end.</summary>
    public void Append(ReadOnlySpan<byte> data, string name)
    {
        lock (_gate)
        {
            ThrowIfDead(name);
            long needed = _length + data.Length;
            if (needed > Array.MaxLength)
            {
                throw new IOException($"'{name}' would grow past {Array.MaxLength} bytes, the most an in-memory file holds.");
            }

            if (needed > _bytes.Length)
            {
                Array.Resize(ref _bytes, (int)Math.Min(Array.MaxLength, Math.Max(needed, Math.Max(256L, _bytes.Length * 2L))));
            }

            data.CopyTo(_bytes.AsSpan((int)_length));
            _length = needed;
        }
    }

    /// <summary>Copies up to <paramref name="buffer"/>'s length from <paramref name="offset"/>; short only at the end.</summary>
    public int ReadAt(long offset, Span<byte> buffer, string name)
    {
        lock (_gate)
        {
            ThrowIfDead(name);
            if (offset >= _length)
            {
                return 0;
            }

            int count = (int)Math.Min(buffer.Length, _length - offset);
            _bytes.AsSpan((int)offset, count).CopyTo(buffer);
            return count;
        }
    }

    /// <summary>Makes every byte appended so far survive a crash of the machine.</summary>
    public void Flush(string name)
    {
        lock (_gate)
        {
            ThrowIfDead(name);
            _durableLength = _length;
        }
    }

    /// <summary>Cuts the file to <paramref name="length"/> bytes, durably.</summary>
    public void Truncate(long length, string name)
    {
        lock (_gate)
        {
            ThrowIfDead(name);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(length, _length);
            _length = length;
            _durableLength = length;
        }
    }

    /// <summary>A copy of every byte appended so far.</summary>
    public byte[] ToArray(string name)
    {
        lock (_gate)
        {
            ThrowIfDead(name);
            return _bytes.AsSpan(0, (int)_length).ToArray();
        }
    }

    /// <summary>
    /// Marks this instance dead and returns what a restarted process finds on disk: every appended byte after a
    /// crash of the process; after a crash of the machine, the bytes up to the last flush, plus, when
    /// <paramref name="tornTail"/> is given, a random prefix of the rest (a write the device had partly done).
    /// </summary>
    public MemoryFileData Survive(bool losesUnsyncedData, Random? tornTail)
    {
        lock (_gate)
        {
            _dead = true;
            if (!losesUnsyncedData)
            {
                return new MemoryFileData(_bytes.AsSpan(0, (int)_length).ToArray(), _length, _durableLength);
            }

            long kept = _durableLength + (tornTail?.NextInt64(_length - _durableLength + 1) ?? 0);
            return new MemoryFileData(_bytes.AsSpan(0, (int)kept).ToArray(), kept, kept);
        }
    }

    /// <summary>Marks this instance dead: the file did not survive a crash.</summary>
    public void Kill()
    {
        lock (_gate)
        {
            _dead = true;
        }
    }

    private void ThrowIfDead(string name)
    {
        if (_dead)
        {
            throw new IOException($"'{name}' belongs to a process that crashed (simulated); open the file again.");
        }
    }
}
