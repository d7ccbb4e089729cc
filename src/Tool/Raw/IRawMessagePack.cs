namespace Stellar.Store.Tool.Raw;

/// <summary>A stand-in for a type the tool cannot load: one whole MessagePack value, kept as its bytes.</summary>
/// <typeparam name="TSelf">The stand-in type.</typeparam>
internal interface IRawMessagePack<TSelf>
    where TSelf : IRawMessagePack<TSelf>
{
    /// <summary>The value's MessagePack bytes.</summary>
    ReadOnlyMemory<byte> Bytes { get; }

    /// <summary>A stand-in read from the store: its bytes only.</summary>
    static abstract TSelf Read(byte[] bytes);
}
