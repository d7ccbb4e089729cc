namespace Stellar.Store;

/// <summary>How blocks are compressed. A block that does not shrink is stored raw either way.</summary>
public enum Compression
{
    /// <summary>Blocks are stored raw.</summary>
    None = 0,

    /// <summary>Blocks are compressed with LZ4 (fast, modest ratio).</summary>
    Lz4 = 1,
}
