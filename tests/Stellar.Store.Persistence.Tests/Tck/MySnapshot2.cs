namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>A snapshot serialized by <see cref="MySnapshotSerializer2"/> (a serializer with a string manifest).</summary>
public sealed class MySnapshot2(string data)
{
    public string Data { get; } = data;
}
