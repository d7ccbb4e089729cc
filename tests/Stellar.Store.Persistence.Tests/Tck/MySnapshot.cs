namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>A snapshot serialized by <see cref="MySnapshotSerializer"/> (a serializer with a type manifest).</summary>
public sealed class MySnapshot(string data)
{
    public string Data { get; } = data;
}
