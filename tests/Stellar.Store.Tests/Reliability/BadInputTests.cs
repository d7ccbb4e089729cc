using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// Bad input through the public API, beyond Api/StoreApiTests: each gets its documented exception, nothing of it is
/// stored, and the store goes on working (and reopens with what it had).
/// </summary>
public sealed class BadInputTests : IDisposable
{
    private static readonly TimeSpan HangTimeout = TimeSpan.FromMinutes(1);
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>Writes a known value, runs <paramref name="abuse"/>, then proves the store still writes, reads and reopens.</summary>
    private async Task AssertStaysUsableAsync(Func<StellarStore, Task> abuse, StoreOptions? options = null)
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.UpsertAsync(new Player(1, "before", 1, 1));
            await abuse(store).WaitAsync(HangTimeout);
            Assert.Equal("before", players.Get(1)?.Name);
            await players.UpsertAsync(new Player(2, "after", 2, 2));
        }

        await using (var reopened = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var players = reopened.GetCollection<int, Player>("players", p => p.Id);
            Assert.Equal("before", players.Get(1)?.Name);
            Assert.Equal("after", players.Get(2)?.Name);
            Assert.Equal(2, players.Count);
        }
    }

    [Fact]
    public Task NullArguments_EverywhereInTheApi_ThrowArgumentNullAndStoreNothing() => AssertStaysUsableAsync(async store =>
    {
        Assert.Throws<ArgumentNullException>(() => store.GetCollection<string, SoakItem>(null!, i => i.Id));
        Assert.Throws<ArgumentNullException>(() => store.GetCollection<string, SoakItem>("items", null!));
        var items = store.GetCollection<string, SoakItem>("items", i => i.Id);
        var valid = new SoakItem("a", 1, "x");

        Assert.Throws<ArgumentNullException>(() => items.Get(null!));
        Assert.Throws<ArgumentNullException>(() => items.TryGet(null!, out _));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.InsertAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.UpdateAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.UpsertAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.DeleteAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.WriteAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.WriteAsync(b => b.Upsert(valid).Upsert(null!)));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.WriteAsync(b => b.Upsert(valid).Delete(null!)));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.BulkImportAsync((IEnumerable<SoakItem>)null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.BulkImportAsync((IAsyncEnumerable<SoakItem>)null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => items.BulkImportAsync([valid, null!, new SoakItem("b", 1, "y")]));
        Assert.Equal(0, items.Count);

        // A key selector that returns null for a value: the write is refused before it is queued.
        var nullKeys = store.GetCollection<string, SoakItem>("null-keys", _ => null!);
        await Assert.ThrowsAsync<ArgumentException>(() => nullKeys.InsertAsync(valid));
        await Assert.ThrowsAsync<ArgumentException>(() => nullKeys.WriteAsync(b => b.Upsert(valid)));
        Assert.Equal(0, nullKeys.Count);
    });

    [Fact]
    public Task Keys_LargerThan4KiB_AreRejectedEverywhereAndTheLargestAllowedOneRoundTrips() => AssertStaysUsableAsync(async store =>
    {
        var items = store.GetCollection<string, SoakItem>("items", i => i.Id);

        // MessagePack stores a string of 256 to 65,535 ASCII characters with a 3-byte header.
        var largest = new string('k', Collection<string, SoakItem>.MaxKeyBytes - 3);
        var tooLarge = largest + "k";
        await items.InsertAsync(new SoakItem(largest, 1, "fits"));

        var error = await Assert.ThrowsAsync<ArgumentException>(() => items.InsertAsync(new SoakItem(tooLarge, 1, "no")));
        Assert.Contains("4096", error.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<ArgumentException>(() => items.UpsertAsync(new SoakItem(new string('k', 100_000), 1, "no")));
        await Assert.ThrowsAsync<ArgumentException>(() => items.DeleteAsync(tooLarge));
        await Assert.ThrowsAsync<ArgumentException>(() => items.WriteAsync(b => b.Upsert(new SoakItem("small", 1, "no")).Upsert(new SoakItem(tooLarge, 1, "no"))));
        await Assert.ThrowsAsync<ArgumentException>(() => items.BulkImportAsync([new SoakItem("small", 1, "no"), new SoakItem(tooLarge, 1, "no")]));
        Assert.Null(items.Get(tooLarge));
        Assert.Null(items.Get("small"));
        Assert.Equal(1, items.Count);
        Assert.Equal("fits", items.Get(largest)?.Payload);
    });

    [Fact]
    public Task Values_LargerThan64MiB_AreRejectedAndNothingIsStored() => AssertStaysUsableAsync(async store =>
    {
        // The one large-value test: 64 MiB + 1 of voxels, which MessagePack stores with a 5-byte header.
        var chunks = store.GetCollection<string, Chunk>("chunks", c => c.Id);
        var huge = new Chunk { Id = "huge", Voxels = new byte[Collection<string, Chunk>.MaxValueBytes + 1] };
        var error = await Assert.ThrowsAsync<ArgumentException>(() => chunks.UpsertAsync(huge));
        Assert.Contains("67108864", error.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<ArgumentException>(() => chunks.WriteAsync(b => b.Upsert(new Chunk { Id = "small" }).Upsert(huge)));
        Assert.Equal(0, chunks.Count);
        await chunks.UpsertAsync(new Chunk { Id = "small", Voxels = [1, 2, 3] });
        Assert.Equal([1, 2, 3], chunks.Get("small")!.Voxels);
    });

    [Theory]
    [InlineData(null)]
    [InlineData("...")]
    [InlineData("a\\b")]
    [InlineData("/abs")]
    [InlineData("C:")]
    [InlineData(" ")]
    [InlineData("a b")]
    [InlineData("naïve")]
    [InlineData("a\0b")]
    [InlineData("CON.txt")]
    [InlineData("nul")]
    [InlineData("com1")]
    [InlineData("LPT9.log")]
    [InlineData("65")]
    [InlineData("1000")]
    public Task GetCollection_WithAnInvalidName_ThrowsNamingTheRuleCreatesNoFileAndStoreStaysUsable(string? name)
    {
        name = name switch
        {
            "65" => new string('n', 65),
            "1000" => new string('x', 1000),
            _ => name,
        };
        return AssertStaysUsableAsync(store =>
        {
            var before = Directory.GetFiles(_dir.Path).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray();
            var error = Assert.ThrowsAny<ArgumentException>(() => store.GetCollection<int, Player>(name!, p => p.Id));
            if (name is not null)
            {
                Assert.Contains("collection name", error.Message, StringComparison.Ordinal);
                Assert.True(error.Message.Length < 400, "the message quotes at most the start of a long name");
            }

            Assert.Equal(before, Directory.GetFiles(_dir.Path).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray());

            // The longest valid name is fine.
            store.GetCollection<int, Player>(new string('n', 64), p => p.Id);
            return Task.CompletedTask;
        });
    }

    [Fact]
    public Task GetCollection_WithMismatchedTypes_ThrowsAndTheCollectionKeepsWorkingAcrossReopen() => AssertStaysUsableAsync(async store =>
    {
        Assert.Throws<InvalidOperationException>(() => store.GetCollection<string, Player>("players", p => p.Name));
        Assert.Throws<InvalidOperationException>(() => store.GetCollection<int, SoakItem>("players", i => (int)i.Version));
        await store.GetCollection<int, Player>("players", p => p.Id).UpsertAsync(new Player(3, "third", 3, 3));
        await store.GetCollection<int, Player>("players", p => p.Id).DeleteAsync(3);
    });

    [Fact]
    public async Task GetCollection_WithMismatchedTypesFirstAfterReopen_ThrowsThenLoadsWithTheRightTypes()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            await store.GetCollection<int, Player>("players", p => p.Id).InsertAsync(new Player(1, "one", 1, 1));
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var error = Assert.Throws<InvalidOperationException>(() => store.GetCollection<Guid, Player>("players", _ => Guid.Empty));
            Assert.Contains(typeof(int).FullName!, error.Message, StringComparison.Ordinal);
            Assert.Equal("one", store.GetCollection<int, Player>("players", p => p.Id).Get(1)?.Name);
        }
    }

    [Fact]
    public async Task EveryWrite_AfterDispose_ThrowsObjectDisposedAndTheStoreReopensIntact()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await players.InsertAsync(new Player(1, "kept", 1, 1));
        await store.DisposeAsync();
        await store.DisposeAsync(); // twice is harmless

        var late = new Player(2, "late", 2, 2);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.InsertAsync(late));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.UpdateAsync(new Player(1, "late", 1, 1)));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.UpsertAsync(late));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.DeleteAsync(1));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.WriteAsync(b => b.Upsert(late)));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.BulkImportAsync([late]).WaitAsync(HangTimeout));
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.FlushAsync());
        Assert.Throws<ObjectDisposedException>(() => store.GetCollection<int, Player>("players", p => p.Id));

        await using var reopened = await StellarStore.OpenAsync(_dir.Path);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        Assert.Equal("kept", again.Get(1)?.Name);
        Assert.Equal(1, again.Count);
        await again.InsertAsync(late);
    }

    [Fact]
    public async Task BulkImport_OfNothingAfterDispose_ThrowsObjectDisposedInsteadOfWaitingForever()
    {
        var store = await StellarStore.OpenAsync(_dir.Path);
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        await store.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => players.BulkImportAsync([]).WaitAsync(HangTimeout));
    }

    [Fact]
    public async Task Writes_RacingWithDispose_EachCompleteOrFailNoneHangs()
    {
        // A write that passed the disposed check just before dispose must still get an outcome.
        for (var round = 0; round < Stress.Pick(20, 200); round++)
        {
            var path = _dir.Sub($"race{round}");
            var store = await StellarStore.OpenAsync(path);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            using var stop = new CancellationTokenSource();
            var acknowledged = new System.Collections.Concurrent.ConcurrentBag<int>();
            var writers = Enumerable.Range(0, 4).Select(t => Task.Run(async () =>
            {
                for (var i = t; !stop.IsCancellationRequested; i += 4)
                {
                    try
                    {
                        await players.UpsertAsync(new Player(i, "racing", i, i));
                        acknowledged.Add(i);
                    }
                    catch (ObjectDisposedException)
                    {
                        return;
                    }
                }
            })).ToArray();
            await Task.Delay(round % 5);
            await store.DisposeAsync();
            await stop.CancelAsync();
            await Task.WhenAll(writers).WaitAsync(HangTimeout);

            await using var reopened = await StellarStore.OpenAsync(path);
            var again = reopened.GetCollection<int, Player>("players", p => p.Id);
            Assert.All(acknowledged, i => Assert.NotNull(again.Get(i)));
        }
    }

    [Fact]
    public Task Writes_WithACancelledToken_ThrowOperationCanceledAndStoreNothing() => AssertStaysUsableAsync(async store =>
    {
        var players = store.GetCollection<int, Player>("players", p => p.Id);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        var value = new Player(9, "cancelled", 9, 9);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => players.InsertAsync(value, cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => players.UpsertAsync(value, cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => players.DeleteAsync(1, cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => players.WriteAsync(b => b.Upsert(value), cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => players.BulkImportAsync([value], cancellationToken: cancelled.Token));
        Assert.Null(players.Get(9));
    });
}
