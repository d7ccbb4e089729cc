using System.Buffers;
using System.Diagnostics;
using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Indexes;

/// <summary>
/// The order of each one-key index of a collection at the last clean close, for the indexes whose keys are not numbers
/// (a number key sorts by its bits, <see cref="RadixKey{T}"/>, faster than its order is checked): the records' primary
/// keys in index order, one file per index. A build that finds its index's file checks it against the records and, when
/// it agrees, takes the order from it instead of sorting; the open of a store with such indexes then costs a pass over
/// the records per index, not a sort.
/// </summary>
/// <remarks>
/// <para>Why this is safe: a file is a hint, never data. The build trusts it only if the index keys it computes from
/// the records themselves, in the file's order, rise strictly (index key, then primary key) and the file names every
/// stored record; a stale file (writes after the close it was written at, a crash, a save folder put back), a changed
/// key selector, a damaged or crafted file all fail that check, and the build sorts as if there were none. Nothing is
/// ever deleted to make a build succeed.</para>
/// <para>Encrypted stores keep none: the file would hold the primary keys in the clear.</para>
/// <para>Format: one MessagePack array of the tag <c>"stellar-index-order"</c>, the format number 1, the index name, the
/// number of keys and then the keys, each as the collection's records store it.</para>
/// <para>Thread safety: any thread; each index reads and writes its own file.</para>
/// </remarks>
internal sealed class IndexOrderFiles
{
    private const string Tag = "stellar-index-order";
    private const int FormatNumber = 1;
    private const int Fields = 4;

    private readonly IStorage _storage;
    private readonly uint _collectionId;
    private readonly RecordSerializer _serializer;

    /// <summary>The files of collection <paramref name="collectionId"/>, whose keys are written as <paramref name="serializer"/> writes its records' keys.</summary>
    public IndexOrderFiles(IStorage storage, uint collectionId, RecordSerializer serializer)
    {
        _storage = storage;
        _collectionId = collectionId;
        _serializer = serializer;
    }

    /// <summary>
    /// The keys the file of index <paramref name="indexName"/> lists, to be read in order, when it exists and its header
    /// holds the number <paramref name="expected"/>; otherwise null. The keys are decoded as they are read
    /// (<see cref="IndexOrderKeys{TKey}.TryRead"/>), which finds a damaged rest of the file; the caller still checks
    /// them against the records.
    /// </summary>
    public IndexOrderKeys<TKey>? Read<TKey>(string indexName, long expected)
    {
        var name = StoreFileNames.IndexOrder(_collectionId, indexName);
        try
        {
            if (!_storage.Exists(name))
            {
                return null;
            }

            var file = _storage.ReadAllBytes(name);
            var reader = new MessagePackReader(file);
            if (reader.ReadArrayHeader() != Fields + expected || reader.ReadString() != Tag || reader.ReadInt32() != FormatNumber
                || reader.ReadString() != indexName || reader.ReadInt64() != expected)
            {
                return null;
            }

            return new IndexOrderKeys<TKey>(file, (int)reader.Consumed, expected, _serializer.Options);
        }
        catch (Exception e) when (Damaged(e))
        {
            return null;
        }
    }

    /// <summary>
    /// Whether <paramref name="e"/>, thrown while an order file's header was read, says it is damaged, crafted or
    /// unreadable: the build then sorts instead.
    /// </summary>
    private static bool Damaged(Exception e) =>
        e is MessagePackSerializationException or EndOfStreamException or IOException or UnauthorizedAccessException or OverflowException;

    /// <summary>
    /// Replaces the file of index <paramref name="indexName"/> with <paramref name="keys"/> (<paramref name="count"/> of
    /// them), atomically. A file that cannot be written is skipped: the next build sorts instead.
    /// </summary>
    public void Write<TKey>(string indexName, IEnumerable<TKey> keys, long count)
    {
        var buffer = new ArrayBufferWriter<byte>();
        var writer = new MessagePackWriter(buffer);
        writer.WriteArrayHeader(checked((int)(Fields + count)));
        writer.Write(Tag);
        writer.Write(FormatNumber);
        writer.Write(indexName);
        writer.Write(count);
        var options = _serializer.Options;
        var formatter = options.Resolver.GetFormatterWithVerify<TKey>();
        var written = 0L;
        foreach (var key in keys)
        {
            formatter.Serialize(ref writer, key, options);
            written++;
        }

        writer.Flush();
        Debug.Assert(written == count, "an index lists every stored record once");
        try
        {
            _storage.ReplaceAtomically(StoreFileNames.IndexOrder(_collectionId, indexName), buffer.WrittenSpan);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // A full disk or a read-only folder at close: the records are safe, and the next open sorts.
        }
    }
}
