using Stellar.Store.Format;
using Stellar.Store.Shards;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// A test's own record of one collection's manifest entry, kept from the requests it made (written from
/// docs/format.md, not from the store's code): the chain, each shard's details, the next shard id, and how many
/// requests replaced the file.
/// </summary>
internal sealed class ChainModel
{
    private readonly SortedDictionary<uint, string> _details = new();
    private readonly Dictionary<uint, (byte[] Salt, ulong First)> _open = new();

    public List<uint> Shards { get; private set; } = new();

    public uint NextShardId { get; set; } = 1;

    /// <summary>The last block sequence the collection handed out.</summary>
    public ulong Sequence { get; set; }

    /// <summary>Requests that replaced (or tried to replace) the manifest file.</summary>
    public int Replaces { get; private set; }

    /// <summary>A new active shard; the one before it is sealed with <paramref name="sealedLength"/>, unless it already was.</summary>
    public void Roll(uint shard, byte[] salt, ulong first, long? sealedLength, ulong? last)
    {
        Replaces++;
        if (sealedLength is { } length && Shards.Count > 0 && _open.Remove(Shards[^1], out var active))
        {
            _details[Shards[^1]] = ManifestOnDisk.Details(active.Salt, active.First, length, last);
        }

        Shards.Add(shard);
        _open[shard] = (salt, first);
        _details[shard] = ManifestOnDisk.Details(salt, first, null, null);
    }

    /// <summary>Takes <paramref name="count"/> shard ids, durably, through <paramref name="manifest"/>; returns the first.</summary>
    public uint Reserve(ManifestStore manifest, uint collection, int count)
    {
        var expected = NextShardId;
        NextShardId += (uint)count;
        Replaces++;
        var first = manifest.ReserveShardIds(collection, count);
        Assert.Equal(expected, first);
        return first;
    }

    /// <summary>A compaction's swap: <paramref name="outputs"/> (sealed) in place of <paramref name="prefix"/>.</summary>
    public void Replace(uint[] prefix, uint[] outputs, Dictionary<uint, string> outputDetails)
    {
        Replaces++;
        Assert.Equal(prefix, Shards.Take(prefix.Length));
        foreach (var id in prefix)
        {
            _details.Remove(id);
            _open.Remove(id);
        }

        Shards = [.. outputs, .. Shards.Skip(prefix.Length)];
        foreach (var (id, details) in outputDetails)
        {
            _details[id] = details;
        }
    }

    public void AssertMatches(ManifestOnDisk.Chain chain, uint id)
    {
        Assert.Equal(id, chain.Id);
        Assert.Equal(Shards, chain.Shards);
        Assert.Equal(NextShardId, chain.NextShardId);
        Assert.Equal(_details, chain.Details);
    }

    public void AssertMatches(ManifestCollection entry, uint id) => AssertMatches(new ManifestOnDisk.Chain(entry.Id, entry.Shards.ToArray(), entry.NextShardId,
        new SortedDictionary<uint, string>(entry.ShardDetails.ToDictionary(d => d.Key, d => ManifestOnDisk.Details(d.Value.Salt, d.Value.FirstSequence, d.Value.SealedLength, d.Value.LastSequence)))), id);
}
