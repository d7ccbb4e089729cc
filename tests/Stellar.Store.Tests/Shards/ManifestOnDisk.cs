using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// What a manifest file says, read the way docs/format.md describes it (a 12-byte prefix, then a JSON body) without
/// the store's own parser, so that tests compare it with their own record of the changes.
/// </summary>
internal static class ManifestOnDisk
{
    /// <summary>
    /// One collection: its id, shard chain, next shard id, and each shard's details as
    /// <c>salt|first sequence|sealed length|last sequence</c> (base64 salt, empty for null).
    /// </summary>
    public sealed record Chain(uint Id, uint[] Shards, uint NextShardId, SortedDictionary<uint, string> Details);

    /// <summary>The generation and the collections (by name) of the manifest file in <paramref name="directory"/>.</summary>
    public static (ulong Generation, Dictionary<string, Chain> Collections) Read(string directory)
    {
        var bytes = File.ReadAllBytes(Path.Combine(directory, "MANIFEST"));
        Assert.Equal(0x4D4C5453u, BinaryPrimitives.ReadUInt32LittleEndian(bytes));
        using var json = JsonDocument.Parse(ManifestSurgery.Body(bytes));
        var root = json.RootElement;
        var collections = new Dictionary<string, Chain>(StringComparer.Ordinal);
        foreach (var c in root.GetProperty("Collections").EnumerateArray())
        {
            var details = new SortedDictionary<uint, string>();
            foreach (var d in c.GetProperty("ShardDetails").EnumerateObject())
            {
                var v = d.Value;
                details[uint.Parse(d.Name, CultureInfo.InvariantCulture)] =
                    Details(v.GetProperty("Salt").ValueKind == JsonValueKind.Null ? null : v.GetProperty("Salt").GetBytesFromBase64(),
                        Number(v, "FirstSequence"), (long?)Number(v, "SealedLength"), Number(v, "LastSequence"));
            }

            collections[c.GetProperty("Name").GetString()!] = new Chain(c.GetProperty("Id").GetUInt32(),
                c.GetProperty("Shards").EnumerateArray().Select(s => s.GetUInt32()).ToArray(), c.GetProperty("NextShardId").GetUInt32(), details);
        }

        return (root.GetProperty("Generation").GetUInt64(), collections);
    }

    /// <summary>The form <see cref="Chain.Details"/> holds one shard's details in.</summary>
    public static string Details(byte[]? salt, ulong? firstSequence, long? sealedLength, ulong? lastSequence) =>
        string.Join('|', salt is null ? "" : Convert.ToBase64String(salt), firstSequence, sealedLength, lastSequence);

    private static ulong? Number(JsonElement element, string name) =>
        element.GetProperty(name).ValueKind == JsonValueKind.Null ? null : element.GetProperty(name).GetUInt64();
}
