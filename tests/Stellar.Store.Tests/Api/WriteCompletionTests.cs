namespace Stellar.Store.Tests.Api;

/// <summary>
/// What a caller relies on when a write's task completes, whichever way the writer committed its group (a small
/// group on the writer's own turn, a large one on the thread pool): the write is in the files as the mode promises,
/// a caller's writes land in the order they were made, and a caller's continuation never runs on the writer.
/// </summary>
public sealed class WriteCompletionTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task InsertAsync_InWriteThrough_IsInTheFilesWhenItsTaskCompletes()
    {
        // A copy of the files taken while the store is still open holds what the OS holds, which is what a kill -9
        // leaves: every write whose task completed must be in it.
        var copy = Path.Combine(_dir.Path, "copy");
        var expected = new List<Player>();
        await using (var store = await StellarStore.OpenAsync(Path.Combine(_dir.Path, "store"), new StoreOptions { Durability = Durability.WriteThrough }))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var i = 0; i < 50; i++)
            {
                var player = new Player(i, $"p{i}", i, i * 100L);
                await players.InsertAsync(player);
                expected.Add(player);
            }

            CopyFiles(Path.Combine(_dir.Path, "store"), copy);
        }

        await using var reopened = await StellarStore.OpenAsync(copy);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal(expected, again.Query().OrderBy(p => p.Id));
    }

    [Fact]
    public async Task Upsert_OneCallersWritesNotAwaitedEachSmallAndLarge_LandInTheOrderTheyWereMade()
    {
        // Small writes are committed on the writer's turn, a write over 64 KiB on the thread pool: the order of one
        // caller's writes must not depend on which way each went.
        var expected = new Dictionary<string, int>();
        var writes = new List<Task>();
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            for (var round = 0; round < 40; round++)
            {
                for (var key = 0; key < 4; key++)
                {
                    var size = (round + key) % 3 == 0 ? 100 * 1024 : 16;
                    var voxels = new byte[size];
                    voxels[0] = (byte)round;
                    writes.Add(chunks.UpsertAsync(new Chunk { Id = $"c{key}", Voxels = voxels }));
                    expected[$"c{key}"] = round;
                }
            }

            await Task.WhenAll(writes);
            AssertHolds(chunks, expected);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        AssertHolds(reopened.GetCollection<string, Chunk>("chunks", c => c.Id), expected);
    }

    [Fact]
    public async Task InsertAsync_WhenTheCallersContinuationBlocks_OtherWritesStillComplete()
    {
        await using var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        using var release = new ManualResetEventSlim();
        var blocking = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        async Task BlockAfterWriteAsync()
        {
            await players.InsertAsync(new Player(1, "one", 1, 1));

            // Runs wherever the write's completion resumed this caller; were that the writer's thread, no other
            // write could complete until it is released.
            blocking.TrySetResult();
            release.Wait(TimeSpan.FromMinutes(1));
        }

        var blocked = Task.Run(BlockAfterWriteAsync);
        await blocking.Task.WaitAsync(TimeSpan.FromMinutes(1));
        try
        {
            await players.InsertAsync(new Player(2, "two", 2, 2)).WaitAsync(TimeSpan.FromMinutes(1));
            Assert.Equal(2, players.Count);
        }
        finally
        {
            release.Set();
            await blocked;
        }
    }

    [Theory]
    [InlineData(Durability.WriteThrough)]
    [InlineData(Durability.Fsync)]
    public async Task GetCollection_NewCollectionNeverWritten_ReopensEmptyAndKeepsLaterWrites(Durability durability)
    {
        // A new collection gets its first shard when it is created, before any write: a store closed (or crashed)
        // right after that must open, and the collection must take writes as any other.
        var options = new StoreOptions { Durability = durability };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            Assert.Equal(0, store.GetCollection<int, Player>("players", p => p.Id).Count);
        }

        var player = new Player(7, "seven", 7, 700);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal(0, players.Count);
            await players.InsertAsync(player);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        Assert.Equal(player, reopened.GetCollection<int, Player>("players", p => p.Id).Get(7));
    }

    private static void AssertHolds(Collection<string, Chunk> chunks, Dictionary<string, int> expected)
    {
        Assert.Equal(expected.Count, chunks.Count);
        foreach (var (id, round) in expected)
        {
            Assert.Equal(round, chunks.Get(id)!.Voxels[0]);
        }
    }

    private static void CopyFiles(string from, string to)
    {
        Directory.CreateDirectory(to);
        // The manifest and the shards; not the lock, which belongs to the open store.
        foreach (var file in Directory.GetFiles(from).Where(f => Path.GetFileName(f) == "MANIFEST" || f.EndsWith(".shard", StringComparison.Ordinal)))
        {
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        }
    }
}
