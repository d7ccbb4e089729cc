namespace Stellar.Store.Tool.Tests;

/// <summary>Stores the tests write with the public API, and the facts they keep about them as their own oracle.</summary>
internal static class TestStores
{
    public const string Players = "players";

    /// <summary>The shard header's length (docs/format.md, "Shard header").</summary>
    private const long ShardHeaderLength = 36;

    /// <summary>The key of the encrypted stores, as the tests hand it to the tool: 64 hexadecimal digits.</summary>
    public static readonly string KeyHex = Convert.ToHexString(Enumerable.Range(0, 32).Select(i => (byte)(i * 11 + 3)).ToArray());

    public static StoreOptions Options(bool encrypted) => new()
    {
        Durability = Durability.WriteThrough,
        EncryptionKey = encrypted ? Convert.FromHexString(KeyHex) : null,
    };

    /// <summary>
    /// Writes players 1 to <paramref name="count"/> into a new store, one awaited upsert (one block) each, and returns
    /// each with the extent of its block in the shard file.
    /// </summary>
    public static async Task<List<WrittenRecord>> WritePlayersAsync(string path, int count, bool encrypted)
    {
        var written = new List<WrittenRecord>();
        await using var store = await StellarStore.OpenAsync(path, Options(encrypted));
        var players = store.GetCollection<int, Player>(Players, p => p.Id);
        string? shard = null;
        for (var id = 1; id <= count; id++)
        {
            // The shard file appears with the first write, after its header: its first block starts there.
            var start = shard is null ? ShardHeaderLength : new FileInfo(shard).Length;
            var player = Player.Make(id);
            await players.UpsertAsync(player);
            shard ??= Directory.GetFiles(path, "*.shard").Single();
            written.Add(new WrittenRecord(player, shard, start, new FileInfo(shard).Length));
        }

        return written;
    }

    /// <summary>Flips every bit of the byte in the middle of <paramref name="record"/>'s block.</summary>
    public static void Damage(WrittenRecord record)
    {
        using var file = File.Open(record.ShardFile, FileMode.Open, FileAccess.ReadWrite);
        var at = (record.Start + record.End) / 2;
        file.Position = at;
        var b = file.ReadByte();
        file.Position = at;
        file.WriteByte((byte)~b);
    }

    /// <summary>Appends half of <paramref name="last"/>'s block again after it: what a crash in the middle of an append leaves.</summary>
    public static void TearTail(WrittenRecord last)
    {
        var block = File.ReadAllBytes(last.ShardFile)[(int)last.Start..(int)last.End];
        using var file = File.Open(last.ShardFile, FileMode.Append);
        file.Write(block, 0, block.Length / 2);
    }

    /// <summary>Every file of the store with its bytes, to show that a verb left the store as it was.</summary>
    public static Dictionary<string, string> Snapshot(string path) =>
        Directory.GetFiles(path).Where(f => Path.GetFileName(f) != "LOCK")
            .ToDictionary(f => Path.GetFileName(f), f => Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(f))));

    /// <summary>The players a store holds, read with the game's own types.</summary>
    public static async Task<Dictionary<int, Player>> ReadPlayersAsync(string path, bool encrypted)
    {
        await using var store = await StellarStore.OpenAsync(path, Options(encrypted));
        return store.GetCollection<int, Player>(Players, p => p.Id).Query().ToDictionary(p => p.Id);
    }
}
