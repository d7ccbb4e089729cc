using Stellar.Store.Samples.GameServer.Persistence;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>
/// <c>--rollback CHECKPOINT --keys 3,17 --data DIR</c>: undoes a griefing spree on chosen world chunks without rolling
/// the world back. The chunks named are restored to what they were in the checkpoint (deleted if they did not exist
/// then), in one atomic batch; every other record keeps its current state. The economy is verified after.
/// </summary>
internal static class RollbackMode
{
    public static async Task<int> RunAsync(string directory, string checkpointName, IReadOnlyList<long> chunkIds, TextWriter output)
    {
        var checkpoint = Path.Combine(directory, StellarStore.CheckpointsDirectoryName, checkpointName);
        if (!Directory.Exists(checkpoint))
        {
            output.WriteLine($"cannot roll back: '{directory}' has no checkpoint '{checkpointName}'");
            return 2;
        }

        await using var store = await StellarStore.OpenAsync(directory).ConfigureAwait(false);
        await using var then = await StellarStore.OpenReadOnlyAsync(checkpoint).ConfigureAwait(false);
        var chunks = GameCollections.Open(store).Chunks;
        var before = chunkIds.ToDictionary(id => id, id => chunks.Get(id));
        var restored = await chunks.RollbackAsync(then, chunkIds).ConfigureAwait(false);
        foreach (var id in chunkIds.Distinct())
        {
            output.WriteLine($"chunk {id}: {Describe(before[id])} -> {Describe(chunks.Get(id))}");
        }

        var economy = StellarGameStore.Verify(store, GameCollections.Open(store), acknowledgedTrades: null, stoppedRun: null);
        output.WriteLine($"rolled back {restored} chunk(s) to checkpoint {checkpointName} in one batch; every other record is as it was; economy: {(economy.Ok ? "verification OK" : "verification FAILED")}");
        return economy.Ok ? 0 : 1;
    }

    private static string Describe(Model.ChunkRecord? chunk) => chunk is null ? "none" : $"version {chunk.Version}";
}
