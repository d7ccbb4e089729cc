using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Running;

namespace Stellar.Store.GameServer.Tests;

/// <summary>The sample's checkpoints during play, their verification, and the selective rollback of griefed chunks.</summary>
public sealed class CheckpointRunTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task Run_WithCheckpointsEverySecond_TakesThem_KeepsTheNewest_AndEachVerifies()
    {
        var output = new StringWriter();
        var result = await GameRun.RunAsync(
            new RunOptions { Bots = 10, Duration = TimeSpan.FromSeconds(4), DataDirectory = _dir.Path, CheckpointEvery = TimeSpan.FromSeconds(1) },
            TextWriter.Synchronized(output),
            CancellationToken.None);

        Assert.True(result.Succeeded, output.ToString());
        Assert.NotNull(result.Checkpoint);
        Assert.True(result.Checkpoint.Ok, string.Join("; ", result.Checkpoint.Failures));
        Assert.Contains("checkpoints: ", output.ToString(), StringComparison.Ordinal);
        var kept = Directory.GetDirectories(Path.Combine(_dir.Path, StellarStore.CheckpointsDirectoryName));
        Assert.InRange(kept.Length, 1, StellarGameStore.KeptCheckpoints);

        var verify = new StringWriter();
        Assert.Equal(0, await VerifyMode.RunAsync(_dir.Path, verify));
        Assert.Equal(kept.Length, verify.ToString().Split('\n').Count(l => l.StartsWith("checkpoint ", StringComparison.Ordinal) && l.Contains("verification OK", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Rollback_RestoresTheGriefedChunksOnly_FromTheCheckpoint()
    {
        await GameRun.RunAsync(new RunOptions { Bots = 10, Duration = TimeSpan.FromSeconds(2), DataDirectory = _dir.Path }, TextWriter.Null, CancellationToken.None);

        // The test's own record of the chunks before the griefing, then the griefing: one chunk wrecked, one added, one
        // chunk changed legitimately (not rolled back).
        ChunkRecord wrecked, legit;
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = GameCollections.Open(store).Chunks;
            var existing = chunks.Query().Take(2).ToList();
            Assert.True(existing.Count == 2, "the bots explored at least two chunks");
            (wrecked, legit) = (existing[0], existing[1]);
            await store.CheckpointAsync("before-grief");
            await chunks.UpsertAsync(wrecked with { Version = wrecked.Version + 50, Voxels = new byte[wrecked.Voxels.Length] });
            await chunks.UpsertAsync(new ChunkRecord(-42, 1, [1, 2, 3]));
            await chunks.UpsertAsync(legit with { Version = legit.Version + 1 });
        }

        var output = new StringWriter();
        Assert.Equal(0, await RollbackMode.RunAsync(_dir.Path, "before-grief", [wrecked.Id, -42], output));

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = GameCollections.Open(store).Chunks;
            var back = chunks.Get(wrecked.Id);
            Assert.NotNull(back);
            Assert.Equal(wrecked.Version, back.Version);
            Assert.Equal(wrecked.Voxels, back.Voxels);
            Assert.Null(chunks.Get(-42));
            Assert.Equal(legit.Version + 1, chunks.Get(legit.Id)!.Version);
        }

        Assert.Contains("verification OK", output.ToString(), StringComparison.Ordinal);
        Assert.Equal(2, await RollbackMode.RunAsync(_dir.Path, "no-such-checkpoint", [1], TextWriter.Null));
    }
}
