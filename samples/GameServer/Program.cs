using System.Diagnostics;
using MessagePack;
using Stellar.Store;
using Stellar.Store.Samples.GameServer;

// Until the full sample game server lands, this runs a short smoke of the real store: concurrent writers,
// an atomic trade, a reopen, and a check. Every figure it prints is measured in this run.
var directory = Path.Combine(Path.GetTempPath(), "stellar-sample-" + Guid.NewGuid().ToString("n"));
const int Players = 20_000;
const int Writers = 8;
try
{
    var stopwatch = Stopwatch.StartNew();
    await using (var store = await StellarStore.OpenAsync(directory, new StoreOptions { Durability = Durability.WriteThrough, Compression = Compression.Lz4 }))
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await Task.WhenAll(Enumerable.Range(0, Writers).Select(w => Task.Run(async () =>
        {
            for (var id = w; id < Players; id += Writers)
            {
                await players.InsertAsync(new Player(id, $"player-{id}", 100));
            }
        })));

        var inserted = stopwatch.Elapsed;
        await players.WriteAsync(b => b.Upsert(players.Get(1)! with { Gold = 50 }).Upsert(players.Get(2)! with { Gold = 150 }));
        Console.WriteLine($"inserted {Players:N0} players from {Writers} tasks in {inserted.TotalMilliseconds:N0} ms " +
            $"({Players / inserted.TotalSeconds:N0} writes/s, WriteThrough, LZ4)");
    }

    stopwatch.Restart();
    await using (var store = await StellarStore.OpenAsync(directory))
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        var gold = players.Query().Sum(p => p.Gold);
        var ok = players.Count == Players && gold == Players * 100L;
        Console.WriteLine($"reopened in {stopwatch.Elapsed.TotalMilliseconds:N0} ms: {players.Count:N0} players, total gold {gold:N0} -> {(ok ? "verified" : "VERIFICATION FAILED")}");
        return ok ? 0 : 1;
    }
}
finally
{
    Directory.Delete(directory, recursive: true);
}

namespace Stellar.Store.Samples.GameServer
{
    [MessagePackObject]
    public sealed record Player([property: Key(0)] int Id, [property: Key(1)] string Name, [property: Key(2)] long Gold);
}
