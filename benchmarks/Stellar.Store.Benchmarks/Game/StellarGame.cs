using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Game;

/// <summary>
/// Stellar.Store: a tick's updates as one atomic <c>WriteAsync</c> batch, or (<c>perRecord</c>) each update awaited
/// on its own, as a server that does not batch would. The leaderboard is an index on the score, read at the newest
/// version (<c>Top(count)</c>).
/// </summary>
internal sealed class StellarGame : IGameStore
{
    private readonly StellarStore _store;
    private readonly Collection<int, SmallRecord> _players;
    private readonly CollectionIndex<int, int, SmallRecord> _byScore;
    private readonly bool _perRecord;

    public StellarGame(string directory, SmallRecord[] players, Durability durability, bool perRecord)
    {
        _perRecord = perRecord;
        Name = perRecord ? $"Stellar_{durability}_PerRecord" : $"Stellar_{durability}";
        Pairing = durability == Durability.Fsync ? Infrastructure.Pairing.Fsync : Infrastructure.Pairing.OsWrite;
        (_store, _players) = Peers.Stellar.OpenSmall(directory, Peers.Stellar.Options(durability));
        _players.BulkImportAsync(players).GetAwaiter().GetResult();
        _byScore = _players.Index("by-score", p => p.Score);
        _byScore.Ready.GetAwaiter().GetResult();
    }

    public string Name { get; }

    public string Pairing { get; }

    public bool IsAsync => true;

    public async ValueTask WriteTickAsync(IReadOnlyList<SmallRecord> updates)
    {
        if (_perRecord)
        {
            foreach (var update in updates)
            {
                await _players.UpsertAsync(update).ConfigureAwait(false);
            }

            return;
        }

        await _players.WriteAsync(batch =>
        {
            foreach (var update in updates)
            {
                batch.Upsert(update);
            }
        }).ConfigureAwait(false);
    }

    public IReadOnlyList<SmallRecord> Top(int reader, int count) => _byScore.Top(count);

    public void Dispose() => _store.DisposeAsync().AsTask().GetAwaiter().GetResult();
}
