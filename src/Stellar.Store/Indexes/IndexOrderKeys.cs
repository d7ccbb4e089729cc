using System.Runtime.CompilerServices;
using MessagePack;
using MessagePack.Formatters;

namespace Stellar.Store.Indexes;

/// <summary>
/// The primary keys of an index's order file (<see cref="IndexOrderFiles"/>), decoded a batch at a time as a build
/// checks them, so that the build keeps no array of every key beside its entries.
/// </summary>
/// <remarks>Thread safety: one build reads it, on one thread.</remarks>
internal sealed class IndexOrderKeys<TKey>
{
    private readonly ReadOnlyMemory<byte> _file;
    private readonly IMessagePackFormatter<TKey> _formatter;
    private readonly MessagePackSerializerOptions _options;
    private int _consumed;
    private long _left;

    /// <summary>The keys of <paramref name="file"/> from <paramref name="start"/> on, <paramref name="count"/> of them, as <paramref name="options"/> reads keys.</summary>
    public IndexOrderKeys(ReadOnlyMemory<byte> file, int start, long count, MessagePackSerializerOptions options)
    {
        _file = file;
        _consumed = start;
        _left = count;
        Count = count;
        _options = options;
        _formatter = options.Resolver.GetFormatterWithVerify<TKey>();
    }

    /// <summary>How many keys the file lists.</summary>
    public long Count { get; }

    /// <summary>
    /// Fills <paramref name="keys"/> with the next keys of the file; false when the file is damaged: a key that does not
    /// decode (whatever the key type throws) or is null, or, once the last key is read, bytes after it.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public bool TryRead(Span<TKey> keys)
    {
        if (keys.Length > _left)
        {
            return false;
        }

        var reader = new MessagePackReader(_file[_consumed..]);
        try
        {
            for (var i = 0; i < keys.Length; i++)
            {
                keys[i] = _formatter.Deserialize(ref reader, _options);
                if (keys[i] is null)
                {
                    return false;
                }
            }
        }
        catch (Exception)
        {
            // Not only the reader's exceptions: a key type's own formatter or constructor throws what it likes for a
            // value it refuses, and an order is a hint, whose damage never fails a build.
            return false;
        }

        _consumed += (int)reader.Consumed;
        _left -= keys.Length;
        return _left > 0 || reader.End;
    }
}
