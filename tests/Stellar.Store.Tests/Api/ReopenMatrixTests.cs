namespace Stellar.Store.Tests.Api;

/// <summary>
/// What <see cref="StoreApiTests"/>' whole-API theory leaves out, over the same matrix (every durability mode,
/// compression on and off) plus passphrase encryption: bulk import, snapshots, several collections at once,
/// contractless values larger than a block, value-tuple keys, and a second session writing over the first.
/// </summary>
public sealed class ReopenMatrixTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    public static TheoryData<Durability, Compression, string> Modes()
    {
        var data = new TheoryData<Durability, Compression, string>();
        foreach (var durability in new[] { Durability.Buffered, Durability.WriteThrough, Durability.Fsync })
        {
            foreach (var compression in new[] { Compression.None, Compression.Lz4 })
            {
                foreach (var encryption in new[] { "none", "key", "passphrase" })
                {
                    data.Add(durability, compression, encryption);
                }
            }
        }

        return data;
    }

    private static StoreOptions Options(Durability durability, Compression compression, string encryption) => new()
    {
        Durability = durability,
        Compression = compression,
        EncryptionKey = encryption == "key" ? Enumerable.Range(0, 32).Select(i => (byte)(i * 7)).ToArray() : null,
        EncryptionPassphrase = encryption == "passphrase" ? "correct horse battery staple" : null,
        PassphraseIterations = 1_000, // the default's cost is the KDF's business, not this test's
        AllowTestIterations = true,
    };

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task Collections_AcrossTwoSessionsAndReopen_KeepEveryAcknowledgedWrite(Durability durability, Compression compression, string encryption)
    {
        var options = Options(durability, compression, encryption);
        var big = Enumerable.Range(0, 100 * 1024).Select(i => (byte)(i % 251)).ToArray();

        // Session 1: a bulk import, a large contractless value, tuple keys, and a snapshot pinned across writes.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var cells = store.GetCollection<(int X, int Y), Cell>("cells", c => (c.X, c.Y));
            await players.BulkImportAsync(AsyncPlayers(10_000));
            await chunks.InsertAsync(new Chunk { Id = "big", Voxels = big });
            await cells.WriteAsync(b => b.Insert(new Cell(1, 2, "ore")).Insert(new Cell(2, 1, "water")));

            using var before = players.Snapshot();
            await players.UpsertAsync(new Player(7, "seven", 70, 700));
            await players.DeleteAsync(8);
            Assert.Equal("p7", before.Get(7)!.Name);
            Assert.NotNull(before.Get(8));
            Assert.Equal(10_000L, before.Count);
            Assert.Equal(9_999L, players.Count);
            if (durability == Durability.Buffered)
            {
                await store.FlushAsync();
            }
        }

        // Session 2: changes on top of what session 1 left, in every collection.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var cells = store.GetCollection<(int X, int Y), Cell>("cells", c => (c.X, c.Y));
            Assert.Equal(9_999L, players.Count);
            Assert.Equal(big, chunks.Get("big")!.Voxels);
            Assert.Equal("water", cells.Get((2, 1))!.Kind);

            await players.BulkImportAsync(Enumerable.Range(5_000, 10_000).Select(i => new Player(i, $"second{i}", -1, i)));
            await chunks.UpsertAsync(new Chunk { Id = "small", Voxels = [9] });
            Assert.True(await chunks.DeleteAsync("big"));
            await cells.UpdateAsync(new Cell(1, 2, "gold"));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
            var cells = store.GetCollection<(int X, int Y), Cell>("cells", c => (c.X, c.Y));
            Assert.Equal(14_999L, players.Count); // 0..14,999 but 8
            Assert.Equal(new Player(4_999, "p4999", 4_999 % 40, 4_999), players.Get(4_999));
            Assert.Equal(new Player(7, "seven", 70, 700), players.Get(7));
            Assert.Null(players.Get(8));
            Assert.Equal("second8000", players.Get(8_000)!.Name);
            Assert.Equal(10_000, players.Query(p => p.Level == -1).Count());
            Assert.Null(chunks.Get("big"));
            Assert.Equal(new byte[] { 9 }, chunks.Get("small")!.Voxels);
            Assert.Equal(1L, chunks.Count);
            Assert.Equal("gold", cells.Get((1, 2))!.Kind);
            Assert.Equal(2L, cells.Count);
            Assert.Equal(0L, store.Recovery.TruncatedBytes);
        }
    }

    private static async IAsyncEnumerable<Player> AsyncPlayers(int count)
    {
        for (var i = 0; i < count; i++)
        {
            if (i % 1_000 == 0)
            {
                await Task.Yield();
            }

            yield return new Player(i, $"p{i}", i % 40, i);
        }
    }
}

/// <summary>A contractless record keyed by a value tuple.</summary>
public sealed record Cell(int X, int Y, string Kind);
