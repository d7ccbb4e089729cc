using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// Exploring: the chunk under the character is read from the store (or generated) off the tick, kept in memory
/// once loaded, dug into on the tick, and written back as a whole (12 KiB, compressed by the store).
/// </summary>
internal sealed partial class World
{
    private readonly Dictionary<long, ChunkRecord> _chunks = new();
    private readonly Dictionary<long, List<(Player Player, int RequestId)>> _chunkLoads = new();

    private void Explore(Player player, GameProtocol.Explore explore)
    {
        var id = WorldChunks.IdOf(player.X, player.Y);
        if (_chunks.TryGetValue(id, out var chunk))
        {
            Dig(player, explore.RequestId, chunk);
            return;
        }

        if (_chunkLoads.TryGetValue(id, out var waiting))
        {
            waiting.Add((player, explore.RequestId));
            return;
        }

        _chunkLoads.Add(id, [(player, explore.RequestId)]);
        _ = Task.Run(() => Post(new Inbound.ChunkLoaded(_store.GetChunk(id) ?? WorldChunks.Generate(id))));
    }

    private void ChunkArrived(ChunkRecord chunk)
    {
        _chunks[chunk.Id] = chunk;
        if (_chunkLoads.Remove(chunk.Id, out var waiting))
        {
            foreach (var (player, requestId) in waiting)
            {
                if (player.Session.Player == player)
                {
                    Dig(player, requestId, _chunks[chunk.Id]);
                }
            }
        }
    }

    private void Dig(Player player, int requestId, ChunkRecord chunk)
    {
        var dug = WorldChunks.Dig(chunk, _random);
        _chunks[dug.Id] = dug;
        ReplyWhenStored(_store.UpsertChunkAsync(dug), WriteKind.Chunk, player.Session, new GameProtocol.Explored(requestId, dug.Id, dug.Version));
    }
}
