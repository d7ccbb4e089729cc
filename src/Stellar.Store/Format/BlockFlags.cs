namespace Stellar.Store.Format;

/// <summary>How a block's payload is stored. Unknown bits make the block unreadable (newer format).</summary>
[Flags]
internal enum BlockFlags : ushort
{
    /// <summary>The payload is the raw record bytes.</summary>
    None = 0,

    /// <summary>The payload was compressed with the store's compressor (LZ4); raw length is in the header.</summary>
    Compressed = 1,

    /// <summary>The payload is AES-GCM ciphertext followed by its 16-byte tag; the header is the associated data.</summary>
    Encrypted = 2,

    /// <summary>The block holds one large value that readers fetch from disk instead of memory.</summary>
    LargeValue = 4,

    /// <summary>
    /// The block is one collection's part of a cross-collection write: its raw payload starts with a
    /// <see cref="UnitTag"/>, and its records count only if the store's unit log holds the decision for that tag.
    /// </summary>
    UnitPart = 8,

    /// <summary>
    /// The block holds a put that expires (<see cref="RecordFormat"/>): a build that would not drop the record at its
    /// time must not read the block.
    /// </summary>
    Expiring = 16,

    /// <summary>Every flag this format version defines.</summary>
    Known = Compressed | Encrypted | LargeValue | UnitPart | Expiring,
}
