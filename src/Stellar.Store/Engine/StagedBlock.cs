using System.Buffers;
using Stellar.Store.Format;

namespace Stellar.Store.Engine;

/// <summary>The writes staged for one block of a commit group, in the order they were staged.</summary>
internal sealed class StagedBlock<TKey, TValue>
{
    /// <summary>A block of plain writes.</summary>
    public StagedBlock()
    {
    }

    /// <summary>A block of a cross-collection round's part: its raw payload starts with <paramref name="tag"/>.</summary>
    public StagedBlock(UnitTag tag)
    {
        Tag = tag;
        Bytes = UnitTag.Length;
    }

    public List<SingleWrite<TKey, TValue>> Writes { get; } = new();

    /// <summary>The round whose part the block holds, or null for plain writes.</summary>
    public UnitTag? Tag { get; }

    /// <summary>Where the records start in the raw payload: after the tag of a part block.</summary>
    public int RecordsOffset => Tag is null ? 0 : UnitTag.Length;

    /// <summary>The raw payload bytes of the block: its records, and the tag of a part block.</summary>
    public long Bytes { get; private set; }

    /// <summary>No further writes join a sealed block (it holds an atomic batch too large to share).</summary>
    public bool Sealed { get; set; }

    /// <summary>Whether a value in it is kept out of memory, so readers will read the block from the file.</summary>
    public bool HoldsLargeValue { get; private set; }

    /// <summary>Whether a record in it expires, so the block is flagged <see cref="BlockFlags.Expiring"/>.</summary>
    public bool HoldsExpiring { get; private set; }

    /// <summary>The flags of the block these writes make.</summary>
    public BlockFlags Flags => (Tag is null ? BlockFlags.None : BlockFlags.UnitPart) | (HoldsExpiring ? BlockFlags.Expiring : BlockFlags.None);

    public void Add(SingleWrite<TKey, TValue> write, int largeValueBytes)
    {
        Writes.Add(write);
        Bytes += write.Length;
        HoldsExpiring |= write.ExpiresAt != 0;
        HoldsLargeValue |= write.Kind != WriteKind.Delete && write.ValueLength > largeValueBytes;
    }

    /// <summary>The block's raw payload in a pooled buffer of at least <see cref="Bytes"/> bytes; the caller returns it.</summary>
    public byte[] Concatenate()
    {
        var raw = ArrayPool<byte>.Shared.Rent(checked((int)Math.Max(1, Bytes)));
        Tag?.Write(raw);
        var position = RecordsOffset;
        foreach (var write in Writes)
        {
            write.Record.AsSpan(0, write.Length).CopyTo(raw.AsSpan(position));
            position += write.Length;
        }

        return raw;
    }
}
