using System.Globalization;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// The test's own copy of what a decoder template wrote: each collection's contents after every write, in order,
/// as plain text, kept apart from the store. A store recovered from damage must hold one of these states (the
/// last one, or an earlier one when it reports a cut tail).
/// </summary>
internal sealed class TemplateHistory
{
    private readonly Dictionary<int, Player> _players = [];
    private readonly Dictionary<string, byte[]> _chunks = new(StringComparer.Ordinal);

    /// <summary>The players after each write, from the empty collection on.</summary>
    public List<Dictionary<string, string>> Players { get; } = [[]];

    /// <summary>The chunks after each write, from the empty collection on.</summary>
    public List<Dictionary<string, string>> Chunks { get; } = [[]];

    public static string Describe(Player p) => string.Create(CultureInfo.InvariantCulture, $"{p.Name}|{p.Level}|{p.Gold}");

    public static string Describe(Chunk c) => Convert.ToHexString(c.Voxels);

    /// <summary>Records one write to the players: upserts, then deletes, as one step.</summary>
    public void RecordPlayers(IEnumerable<Player> upserts, params int[] deletes)
    {
        foreach (var p in upserts)
        {
            _players[p.Id] = p;
        }

        foreach (var id in deletes)
        {
            _players.Remove(id);
        }

        Players.Add(_players.ToDictionary(p => p.Key.ToString(CultureInfo.InvariantCulture), p => Describe(p.Value), StringComparer.Ordinal));
    }

    /// <summary>Records one write to the chunks.</summary>
    public void RecordChunks(Chunk? upsert, string? delete = null)
    {
        if (upsert is not null)
        {
            _chunks[upsert.Id] = (byte[])upsert.Voxels.Clone();
        }

        if (delete is not null)
        {
            _chunks.Remove(delete);
        }

        Chunks.Add(_chunks.ToDictionary(c => c.Key, c => Convert.ToHexString(c.Value), StringComparer.Ordinal));
    }

    /// <summary>
    /// Where <paramref name="loaded"/> (each value described under the key its value names) is in
    /// <paramref name="history"/>: the last state, the empty collection, another earlier one, or none (also when two
    /// values name one key, which only a resealed edit of a key can produce).
    /// </summary>
    public static Match Find(List<Dictionary<string, string>> history, IReadOnlyList<(string Key, string Value)> loaded)
    {
        var state = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var (key, value) in loaded)
        {
            if (!state.TryAdd(key, value))
            {
                return Match.None;
            }
        }

        for (var i = history.Count - 1; i >= 0; i--)
        {
            if (history[i].Count == state.Count && history[i].All(kv => state.TryGetValue(kv.Key, out var v) && v == kv.Value))
            {
                return i == history.Count - 1 ? Match.Final : i == 0 ? Match.Empty : Match.Earlier;
            }
        }

        return Match.None;
    }

    public enum Match
    {
        Final,
        Empty,
        Earlier,
        None,
    }
}
