using Stellar.Store.Format;

namespace Stellar.Store.Inspection;

/// <summary>
/// One collection as a read of its files found it: its manifest entry, every block and bad stretch in replay order,
/// and the records a reader would see once the good blocks are applied in order. Immutable once built.
/// </summary>
/// <param name="Entry">The collection's manifest entry.</param>
/// <param name="Blocks">Every good block and bad stretch, in replay order.</param>
/// <param name="Live">The records a reader would see, by key bytes, in key byte order.</param>
/// <param name="UndecidedBlocks">
/// Good blocks of writes across collections whose round the unit log does not hold as committed: left out, as an open
/// leaves them out.
/// </param>
internal sealed record CollectionContents(
    ManifestCollection Entry,
    IReadOnlyList<InspectedBlock> Blocks,
    IReadOnlyList<LiveRecord> Live,
    long UndecidedBlocks)
{
    /// <summary>The bad stretches that are damage (not a torn tail).</summary>
    public IEnumerable<InspectedBlock> Damage => Blocks.Where(b => b is { IsGood: false, IsTornTail: false });

    /// <summary>The torn tail of the active shard, if one was found.</summary>
    public InspectedBlock? TornTail => Blocks.FirstOrDefault(b => b.IsTornTail);
}
