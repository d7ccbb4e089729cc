namespace Stellar.Store.Inspection;

/// <summary>Compares MessagePack keys by their bytes, as the tool's untyped view tells keys apart.</summary>
internal sealed class ByteKeyComparer : IEqualityComparer<ReadOnlyMemory<byte>>, IComparer<ReadOnlyMemory<byte>>
{
    /// <summary>The one instance: the comparer is stateless.</summary>
    public static readonly ByteKeyComparer Instance = new();

    private ByteKeyComparer()
    {
    }

    public bool Equals(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceEqual(y.Span);

    public int GetHashCode(ReadOnlyMemory<byte> obj)
    {
        var hash = new HashCode();
        hash.AddBytes(obj.Span);
        return hash.ToHashCode();
    }

    public int Compare(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceCompareTo(y.Span);
}
