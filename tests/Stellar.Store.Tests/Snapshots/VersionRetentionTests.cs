using System.Runtime.CompilerServices;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Snapshots;

/// <summary>
/// Replaced versions become garbage once no open snapshot can see them. The oracle is the garbage collector: a
/// <see cref="WeakReference"/> to each value the store holds (its own instance, decoded from the bytes written, which
/// reads return) dies only when nothing, the store included, can reach it any more.
/// </summary>
public sealed class VersionRetentionTests : IDisposable
{
    private const int ValueBytes = 1024;
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>The scenario as reported: 20,000 keys of 1 KB updated once, then 50 commits to other keys.</summary>
    [Fact]
    public async Task Update_WithNoSnapshotOpen_LeavesEveryReplacedValueUnreachable()
    {
        const int Keys = 20_000;
        await using var store = await OpenAsync();
        var chunks = Chunks(store);
        var first = await WriteRoundAsync(chunks, Keys, round: 1);
        await WriteRoundAsync(chunks, Keys, round: 2);
        for (var i = 0; i < 50; i++)
        {
            await chunks.UpsertAsync(MakeChunk($"other-{i}", 1));
        }

        Collect();
        Assert.Equal(0, first.Count(w => w.IsAlive));
        Assert.Equal(0, chunks.Statistics.RetainedVersions);
        Assert.Equal(Keys + 50, chunks.Count);
    }

    [Fact]
    public async Task Snapshot_WhileOpen_KeepsTheVersionsItSeesAndFreesThemOnDisposeWithoutAnotherWrite()
    {
        const int Keys = 200;
        await using var store = await OpenAsync();
        var chunks = Chunks(store);
        var first = await WriteRoundAsync(chunks, Keys, round: 1);
        var snapshot = chunks.Snapshot();
        await WriteRoundAsync(chunks, Keys, round: 2);

        Collect();
        Assert.Equal(Keys, first.Count(w => w.IsAlive));
        Assert.Equal(Keys, chunks.Statistics.RetainedVersions);
        Assert.Equal(1, chunks.Statistics.OpenSnapshots);
        Assert.All(Enumerable.Range(0, Keys), i => Assert.Equal(1, snapshot.Get($"k{i}")!.Voxels[0]));

        snapshot.Dispose();
        await store.FlushAsync(); // a barrier behind the writer's clean-up, not a write

        Collect();
        Assert.Equal(0, first.Count(w => w.IsAlive));
        Assert.Equal(0, chunks.Statistics.RetainedVersions);
        Assert.Equal(0, chunks.Statistics.OpenSnapshots);
        Assert.All(Enumerable.Range(0, Keys), i => Assert.Equal(2, chunks.Get($"k{i}")!.Voxels[0]));
    }

    [Fact]
    public async Task Snapshot_LeakedWithoutDispose_IsReleasedWhenCollected()
    {
        const int Keys = 200;
        await using var store = await OpenAsync();
        var chunks = Chunks(store);
        var first = await WriteRoundAsync(chunks, Keys, round: 1);
        LeakSnapshot(chunks);
        await WriteRoundAsync(chunks, Keys, round: 2);

        Collect(); // runs the leaked snapshot's finalizer, which hands the clean-up to the writer
        await store.FlushAsync();
        Collect();
        Assert.Equal(0, first.Count(w => w.IsAlive));
        Assert.Equal(0, chunks.Statistics.OpenSnapshots);
    }

    [Fact]
    public async Task Query_AbandonedMidEnumeration_IsReleasedWhenCollected()
    {
        const int Keys = 200;
        await using var store = await OpenAsync();
        var chunks = Chunks(store);
        var first = await WriteRoundAsync(chunks, Keys, round: 1);
        Assert.True(AbandonQuery(chunks));
        await WriteRoundAsync(chunks, Keys, round: 2);

        Collect();
        await store.FlushAsync();
        Collect();
        Assert.Equal(0, first.Count(w => w.IsAlive));
        Assert.Equal(0, chunks.Statistics.OpenSnapshots);
    }

    [Fact]
    public async Task Delete_WithNoSnapshotOpen_LeavesTheDeletedValueUnreachable()
    {
        const int Keys = 100;
        await using var store = await OpenAsync();
        var chunks = Chunks(store);
        var first = await WriteRoundAsync(chunks, Keys, round: 1);
        await chunks.WriteAsync(b =>
        {
            for (var i = 0; i < Keys; i++)
            {
                b.Delete($"k{i}");
            }
        });

        Collect();
        Assert.Equal(0, first.Count(w => w.IsAlive));
        Assert.Equal(0, chunks.Count);
        Assert.Equal(0, chunks.Engine.Map.ChainCount);
    }

    private Task<StellarStore> OpenAsync() =>
        StellarStore.OpenAsync(_dir.Path, new StoreOptions { CompactionThreshold = 0 });

    private static Collection<string, Chunk> Chunks(StellarStore store) => store.GetCollection<string, Chunk>("chunks", c => c.Id);

    private static Chunk MakeChunk(string id, int round)
    {
        var voxels = new byte[ValueBytes];
        Array.Fill(voxels, (byte)round);
        return new Chunk { Id = id, Voxels = voxels };
    }

    /// <summary>Writes every key once in batches of 1,000 and returns weak references to the values the store then holds.</summary>
    private static async Task<WeakReference[]> WriteRoundAsync(Collection<string, Chunk> chunks, int keys, int round)
    {
        var weak = new WeakReference[keys];
        for (var start = 0; start < keys; start += 1000)
        {
            var end = Math.Min(keys, start + 1000);
            await chunks.WriteAsync(b =>
            {
                for (var i = start; i < end; i++)
                {
                    b.Upsert(MakeChunk($"k{i}", round));
                }
            });
            HoldWeakly(chunks, weak, start, end);
        }

        return weak;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void HoldWeakly(Collection<string, Chunk> chunks, WeakReference[] weak, int start, int end)
    {
        for (var i = start; i < end; i++)
        {
            weak[i] = new WeakReference(chunks.Get($"k{i}"));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LeakSnapshot(Collection<string, Chunk> chunks)
    {
        var snapshot = chunks.Snapshot();
        Assert.Equal(1, snapshot.Get("k0")!.Voxels[0]);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool AbandonQuery(Collection<string, Chunk> chunks)
    {
        var enumerator = chunks.Query().GetEnumerator();
        return enumerator.MoveNext();
    }

    private static void Collect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
    }
}
