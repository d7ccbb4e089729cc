using System.Text;

namespace Stellar.Store.Benchmarks.Model;

/// <summary>Deterministic records: the same seed gives every peer the same data.</summary>
public static class Data
{
    /// <summary>The base of every <c>LastSeen</c> date.</summary>
    public static readonly DateTime Epoch = new(2025, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static readonly string[] Words =
    [
        "the", "player", "found", "a", "sword", "in", "castle", "north", "of", "river", "and", "traded", "it", "for",
        "gold", "coins", "while", "guild", "members", "gathered", "near", "old", "tower", "to", "plan", "raid", "on",
        "dragon", "lair", "before", "sunset", "with", "potions", "arrows", "shields", "quest", "reward", "was",
        "bigger", "than", "expected", "so", "everyone", "celebrated", "at", "tavern", "until", "dawn",
    ];

    /// <summary>Small record number <paramref name="id"/> (the same values for the same id every time).</summary>
    public static SmallRecord Small(int id)
    {
        var random = new Random(id);
        return new SmallRecord
        {
            Id = id,
            Name = $"player-{id:D8}",
            Score = random.Next(0, 1_000_000),
            LastSeen = Epoch.AddMinutes(random.Next(0, 525_600)),
        };
    }

    /// <summary>
    /// Small records with ids <c>1 .. count</c>, made as they are enumerated. Ids start at 1 because LiteDB treats
    /// an int id of 0 as "generate one".
    /// </summary>
    public static IEnumerable<SmallRecord> SmallRange(int count)
    {
        for (var i = 1; i <= count; i++)
        {
            yield return Small(i);
        }
    }

    /// <summary>
    /// The next version of <paramref name="record"/>: a score one higher, seen a minute later, and with
    /// <paramref name="renamed"/> a new name (so that an index on the name moves it too).
    /// </summary>
    public static SmallRecord Next(SmallRecord record, bool renamed = false) =>
        new() { Id = record.Id, Name = renamed ? record.Name + "'" : record.Name, Score = record.Score + 1, LastSeen = record.LastSeen.AddMinutes(1) };

    /// <summary>
    /// <paramref name="count"/> updates of records picked at random (seeded) from <paramref name="records"/>, each the
    /// <see cref="Next"/> version of the record it picked.
    /// </summary>
    public static SmallRecord[] RandomUpdates(SmallRecord[] records, int count, bool renamed)
    {
        var random = new Random(42);
        return Enumerable.Range(0, count).Select(_ => Next(records[random.Next(records.Length)], renamed)).ToArray();
    }

    /// <summary>
    /// <paramref name="count"/> writes of records picked at random (seeded) from <paramref name="records"/>, each the
    /// <see cref="Next"/> version of the record's write before (of the record itself the first time): unlike
    /// <see cref="RandomUpdates"/>, a record picked again gets a new value again, so every write changes its record.
    /// </summary>
    public static SmallRecord[] ChainedUpdates(SmallRecord[] records, int count, bool renamed)
    {
        var random = new Random(42);
        var current = (SmallRecord[])records.Clone();
        var writes = new SmallRecord[count];
        for (var i = 0; i < count; i++)
        {
            var at = random.Next(current.Length);
            writes[i] = current[at] = Next(current[at], renamed);
        }

        return writes;
    }

    /// <summary>Large record number <paramref name="id"/> with about <paramref name="textBytes"/> bytes of text.</summary>
    public static LargeRecord Large(int id, int textBytes = 2048)
    {
        var small = Small(id);
        return new LargeRecord { Id = id, Name = small.Name, Score = small.Score, LastSeen = small.LastSeen, Body = Text(id, textBytes) };
    }

    /// <summary>English-like text of about <paramref name="bytes"/> bytes, seeded by <paramref name="seed"/>: compresses like real prose, not like a repeated string.</summary>
    public static string Text(int seed, int bytes)
    {
        var random = new Random(seed ^ 0x5bd1e995);
        var text = new StringBuilder(bytes + 16);
        while (text.Length < bytes)
        {
            text.Append(Words[random.Next(Words.Length)]);
            text.Append(random.Next(12) == 0 ? ". " : " ");
            if (random.Next(20) == 0)
            {
                text.Append(random.Next(1_000_000));
                text.Append(' ');
            }
        }

        return text.ToString(0, bytes);
    }
}
