using MessagePack;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Units;

namespace Stellar.Store.Inspection;

/// <summary>
/// Every collection of a store as its files hold it, replayed the way an open replays them but without stopping at
/// damage: each collection's good blocks are applied in order (a put sets its key, a delete removes it), a part of a
/// write across collections counts only when the unit log holds its round as committed, and records that have
/// expired are left out. What a bad stretch held is not there: a key whose later put or delete was in one shows its
/// last version before it.
/// </summary>
internal static class StoreContents
{
    /// <summary>
    /// Reads and replays every collection of <paramref name="inspector"/>'s store, the store's own unit log included
    /// (it decides which parts count), with <paramref name="now"/> deciding what has expired.
    /// </summary>
    public static IReadOnlyList<CollectionContents> Read(StoreInspector inspector, DateTimeOffset now)
    {
        ArgumentNullException.ThrowIfNull(inspector);
        var read = inspector.Collections.Select(c => (Entry: c, Blocks: inspector.ReadCollection(c, keepRecords: true))).ToList();
        var parts = new Dictionary<(uint Collection, uint Shard, long Offset), UnitTag>();
        foreach (var (entry, blocks) in read)
        {
            foreach (var block in blocks.Where(b => b is { IsGood: true, Unit: not null }))
            {
                parts[(entry.Id, block.ShardId, block.Offset)] = block.Unit!.Value;
            }
        }

        var log = read.FirstOrDefault(c => c.Entry.Name == CollectionName.UnitLog);
        var committed = log.Blocks is null ? new Dictionary<Guid, long>() : CommittedRounds(Replay(log.Blocks, _ => false, now.UtcTicks, out _), parts);
        bool Decided(UnitTag tag) => committed.TryGetValue(tag.Session, out var round) && (ulong)round >= tag.Round;
        return read.Select(c => new CollectionContents(c.Entry, c.Blocks, Replay(c.Blocks, Decided, now.UtcTicks, out var undecided), undecided)).ToList();
    }

    /// <summary>The records a reader would see after <paramref name="blocks"/>, in key byte order.</summary>
    private static List<LiveRecord> Replay(IEnumerable<InspectedBlock> blocks, Func<UnitTag, bool> decided, long nowTicks, out long undecided)
    {
        undecided = 0;
        var live = new Dictionary<ReadOnlyMemory<byte>, LiveRecord>(ByteKeyComparer.Instance);
        foreach (var block in blocks.Where(b => b.IsGood))
        {
            if (block.Unit is { } tag && !decided(tag))
            {
                undecided++;
                continue;
            }

            foreach (var record in block.Records)
            {
                if (record.Kind == RecordKind.Delete)
                {
                    live.Remove(record.Key);
                }
                else
                {
                    live[record.Key] = new LiveRecord(record.Key, record.Value, record.ExpiresAt);
                }
            }
        }

        return live.Values.Where(r => r.ExpiresAt == 0 || r.ExpiresAt > nowTicks)
            .OrderBy(r => r.Key, ByteKeyComparer.Instance).ToList();
    }

    /// <summary>
    /// The highest committed round of each session in the unit log: a decision still naming its parts' blocks counts
    /// only when every one of them was read whole with the round's tag, as the open's settling decides it.
    /// </summary>
    private static Dictionary<Guid, long> CommittedRounds(List<LiveRecord> decisions, Dictionary<(uint, uint, long), UnitTag> parts)
    {
        var rounds = new Dictionary<Guid, long>();
        foreach (var record in decisions)
        {
            UnitDecision decision;
            try
            {
                decision = RecordSerializer.Default.Deserialize<UnitDecision>(record.Value);
            }
            catch (MessagePackSerializationException)
            {
                continue;
            }

            var tag = new UnitTag(decision.Session, (ulong)decision.Round);
            var whole = decision.Parts is null
                || decision.Parts.All(p => parts.TryGetValue((p.Collection, p.Shard, p.Offset), out var found) && found == tag);
            rounds[decision.Session] = whole ? decision.Round : decision.Round - 1;
        }

        return rounds;
    }
}
