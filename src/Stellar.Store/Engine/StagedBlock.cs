using System.Buffers;

namespace Stellar.Store.Engine;

/// <summary>The writes staged for one block of a commit group, in the order they were staged.</summary>
internal sealed class StagedBlock<TKey, TValue>
{
    public List<SingleWrite<TKey, TValue>> Writes { get; } = new();

    /// <summary>The raw record bytes of the block.</summary>
    public long Bytes { get; private set; }

    /// <summary>No further writes join a sealed block (it holds an atomic batch too large to share).</summary>
    public bool Sealed { get; set; }

    /// <summary>Whether a value in it is kept out of memory, so readers will read the block from the file.</summary>
    public bool HoldsLargeValue { get; private set; }

    public void Add(SingleWrite<TKey, TValue> write, int largeValueBytes)
    {
        Writes.Add(write);
        Bytes += write.Length;
        HoldsLargeValue |= write.Kind != WriteKind.Delete && write.ValueLength > largeValueBytes;
    }

    /// <summary>The block's raw payload in a pooled buffer of at least <see cref="Bytes"/> bytes; the caller returns it.</summary>
    public byte[] Concatenate()
    {
        var raw = ArrayPool<byte>.Shared.Rent(checked((int)Math.Max(1, Bytes)));
        var position = 0;
        foreach (var write in Writes)
        {
            write.Record.AsSpan(0, write.Length).CopyTo(raw.AsSpan(position));
            position += write.Length;
        }

        return raw;
    }
}
