using Stellar.Store.Format;

namespace Stellar.Store.Engine;

/// <summary>
/// The records of a decoded block's raw payload, as the load at open and the change feed both read them: where the
/// records start (after a round's tag in a part block), and their count, checked against the header by walking the
/// bytes before anything is sized by it.
/// </summary>
/// <remarks>Thread safety: stateless.</remarks>
internal static class BlockRecords
{
    /// <summary>
    /// Where the records of <paramref name="raw"/> start, and the round a part block names (null for any other
    /// block); a part block too short for its tag is <see cref="CorruptBlockException"/>.
    /// </summary>
    public static int Start(byte[] raw, BlockFlags flags, string path, long offset, out UnitTag? tag)
    {
        tag = null;
        if ((flags & BlockFlags.UnitPart) == 0)
        {
            return 0;
        }

        tag = UnitTag.Read(raw) ?? throw new CorruptBlockException(path, offset, "a cross-collection part block is too short for its round's tag");
        return UnitTag.Length;
    }

    /// <summary>
    /// The number of records in <paramref name="raw"/> from <paramref name="position"/>, which must be <paramref name="stated"/>: counted from the
    /// bytes (a walk over the record lengths, nothing allocated) before an array is sized, so a resealed header
    /// cannot make a block cost more memory than its records.
    /// </summary>
    public static int Count(byte[] raw, int position, uint stated, string path, long offset)
    {
        var count = 0;
        while (position < raw.Length && count < stated)
        {
            if (!RecordFormat.TryRead(raw, ref position, out RecordExtent _))
            {
                throw new CorruptBlockException(path, offset, $"record {count} of {stated} is malformed");
            }

            count++;
        }

        if (count != stated)
        {
            throw new CorruptBlockException(path, offset, $"the header states {stated} records but the block holds {count}");
        }

        if (position != raw.Length)
        {
            throw new CorruptBlockException(path, offset, "the block has bytes after its last record");
        }

        return count;
    }
}
