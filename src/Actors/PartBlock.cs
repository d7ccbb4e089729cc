namespace Stellar.Store.Actors;

/// <summary>
/// Where one block of a round's part was written: the collection, the shard and the offset in it. The coordinator
/// carries it into the round's decision without looking inside; recovery reads the block there to tell whether the
/// part reached the disk (see <see cref="IUnitLog"/>).
/// </summary>
/// <param name="Collection">The collection's id.</param>
/// <param name="Shard">The shard's id in that collection.</param>
/// <param name="Offset">The block's offset in the shard file.</param>
internal readonly record struct PartBlock(uint Collection, uint Shard, long Offset);
