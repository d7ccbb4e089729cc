using MessagePack;
using MessagePack.Formatters;
using MessagePack.Resolvers;

namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// <see cref="StoreOptions.Serializer"/>: a game's own formatters go in front of the store's, for types MessagePack cannot
/// serialize by default, and records are still decoded as untrusted data whatever options are given.
/// </summary>
public sealed class SerializerOptionTests : IDisposable
{
    private static readonly Ship Flagship = new(7, "Argo", new Position(1.5f, -2.25f, 1e6f));

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>The game's options: its formatter for <see cref="Position"/>, then MessagePack's standard resolver.</summary>
    private static MessagePackSerializerOptions WithPositions { get; } =
        MessagePackSerializerOptions.Standard.WithResolver(CompositeResolver.Create([new PositionFormatter()], [StandardResolver.Instance]));

    [Fact]
    public async Task Serializer_WithAFormatterForACustomStruct_RoundTripsARecordHoldingItThroughAReopen()
    {
        var options = new StoreOptions { Serializer = WithPositions };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await store.GetCollection<int, Ship>("ships", s => s.Id).InsertAsync(Flagship);
        }

        // Copy-on-read copies through the game's formatter too.
        await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Serializer = WithPositions, CopyOnRead = true }))
        {
            var ships = store.GetCollection<int, Ship>("ships", s => s.Id);
            Assert.Equal(Flagship, ships.Get(Flagship.Id));
            Assert.Equal(new[] { Flagship }, ships.Query(s => s.At.X > 1).ToArray());
        }
    }

    [Fact]
    public async Task Changes_OfACollectionWithAFormatter_ReadsItsRecordsThroughTheFormatter()
    {
        var options = new StoreOptions { Serializer = WithPositions };
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await store.GetCollection<int, Ship>("ships", s => s.Id).InsertAsync(Flagship);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var ships = reopened.GetCollection<int, Ship>("ships", s => s.Id);
        await foreach (var change in ships.Changes(ChangePosition.Start))
        {
            Assert.Equal(Flagship, change.Value);
            return;
        }

        Assert.Fail("The feed held no change.");
    }

    [Fact]
    public async Task InsertAsync_OfACustomStructWithoutItsFormatter_ThrowsArgumentExceptionAndLeavesTheStoreIntact()
    {
        await using (var store = await StellarStore.OpenAsync(_dir.Path))
        {
            var names = store.GetCollection<int, string>("names", n => n.Length);
            await names.InsertAsync("kept");
            var ships = store.GetCollection<int, Ship>("ships", s => s.Id);

            var refused = await Assert.ThrowsAsync<ArgumentException>(() => ships.InsertAsync(Flagship));
            Assert.Contains(nameof(Ship), refused.Message, StringComparison.Ordinal);
            Assert.Contains(nameof(StoreOptions.Serializer), refused.Message, StringComparison.Ordinal);
            Assert.Equal(0, ships.Count);
            await names.InsertAsync("after");
        }

        await using (var store = await StellarStore.OpenAsync(_dir.Path, new StoreOptions { Serializer = WithPositions }))
        {
            Assert.Equal(["after", "kept"], store.GetCollection<int, string>("names", n => n.Length).Query().Order(StringComparer.Ordinal).ToArray());
            var ships = store.GetCollection<int, Ship>("ships", s => s.Id);
            Assert.Equal(0, ships.Count);
            await ships.InsertAsync(Flagship);
            Assert.Equal(Flagship, ships.Get(Flagship.Id));
        }
    }

    [Fact]
    public async Task Serializer_LeftAtTrustedData_ReadsRecordsAsUntrustedDataWithCollisionResistantMaps()
    {
        // MessagePack's standard options trust their input; the store reads records as untrusted data anyway, whose maps
        // hash their keys so that a crafted record cannot make lookups in them slow.
        var options = new StoreOptions { Serializer = MessagePackSerializerOptions.Standard };
        Assert.Same(MessagePackSecurity.TrustedData, options.Serializer.Security);
        var cargo = new Cargo(1, new Dictionary<string, int> { ["ore"] = 3 });
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            await store.GetCollection<int, Cargo>("cargo", c => c.Id).InsertAsync(cargo);
        }

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var read = reopened.GetCollection<int, Cargo>("cargo", c => c.Id).Get(1)!;
        Assert.Equal(3, read.Items["ore"]);
        Assert.IsType(MessagePackSecurity.UntrustedData.GetEqualityComparer<string>().GetType(), read.Items.Comparer);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Write_OfAValueNestedPastTheDepthLimit_IsRefusedAndTheStoreStillOpens(bool customSerializer)
    {
        var options = new StoreOptions { Serializer = customSerializer ? MessagePackSerializerOptions.Standard : null };
        var limit = MessagePackSecurity.UntrustedData.MaximumObjectGraphDepth;
        var deepest = Chain(limit);
        await using (var store = await StellarStore.OpenAsync(_dir.Path, options))
        {
            var links = store.GetCollection<int, Link>("links", l => l.Id);
            await links.InsertAsync(deepest);
            var refusal = await Assert.ThrowsAsync<ArgumentException>(() => links.UpsertAsync(Chain(limit + 1) with { Id = 2 }));
            Assert.Contains("levels deep", refusal.Message, StringComparison.Ordinal);
            await Assert.ThrowsAsync<ArgumentException>(() => links.WriteAsync(b => b.Upsert(Chain(limit + 10) with { Id = 3 })));
            await Assert.ThrowsAsync<ArgumentException>(() => links.BulkImportAsync([Chain(limit + 10) with { Id = 4 }]));
        }

        // The oracle: MessagePack alone reads the deepest accepted record back whole with the store's security.
        var bytes = MessagePackSerializer.Serialize(deepest, ContractlessStandardResolver.Options);
        Assert.Equal(limit, Depth(MessagePackSerializer.Deserialize<Link>(bytes, ContractlessStandardResolver.Options.WithSecurity(MessagePackSecurity.UntrustedData))));

        await using var reopened = await StellarStore.OpenAsync(_dir.Path, options);
        var read = reopened.GetCollection<int, Link>("links", l => l.Id);
        Assert.Equal(1, read.Count);
        Assert.Equal(limit, Depth(read.Get(1)));
    }

    [Fact]
    public async Task OpenAsync_WithASerializerThatTurnsUntrustedDataOff_ThrowsNamingTheOption()
    {
        var trusting = MessagePackSerializerOptions.Standard.WithSecurity(MessagePackSecurity.TrustedData.WithMaximumObjectGraphDepth(10_000));

        var refused = await Assert.ThrowsAsync<ArgumentException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { Serializer = trusting }));

        Assert.Equal(nameof(StoreOptions.Serializer), refused.ParamName);
        Assert.Empty(Directory.GetFileSystemEntries(_dir.Path));
    }

    [Fact]
    public async Task OpenAsync_WithASerializerThatCompresses_ThrowsNamingTheOption()
    {
        var compressing = WithPositions.WithCompression(MessagePackCompression.Lz4BlockArray);

        var refused = await Assert.ThrowsAsync<ArgumentException>(() => StellarStore.OpenAsync(_dir.Path, new StoreOptions { Serializer = compressing }));

        Assert.Equal(nameof(StoreOptions.Serializer), refused.ParamName);
    }

    private static Link Chain(int depth)
    {
        var link = new Link(1, null);
        for (var i = 1; i < depth; i++)
        {
            link = new Link(1, link);
        }

        return link;
    }

    private static int Depth(Link? link)
    {
        var depth = 0;
        for (; link is not null; link = link.Next)
        {
            depth++;
        }

        return depth;
    }

    /// <summary>A position that MessagePack cannot serialize by default: its constructor matches none of its members.</summary>
    public readonly record struct Position
    {
        private readonly float _x;
        private readonly float _y;
        private readonly float _z;

        public Position(float x, float y, float z) => (_x, _y, _z) = (x, y, z);

        public float X => _x;

        public void Deconstruct(out float x, out float y, out float z) => (x, y, z) = (_x, _y, _z);
    }

    /// <summary>The game's formatter: a position as an array of its three coordinates.</summary>
    public sealed class PositionFormatter : IMessagePackFormatter<Position>
    {
        public void Serialize(ref MessagePackWriter writer, Position value, MessagePackSerializerOptions options)
        {
            var (x, y, z) = value;
            writer.WriteArrayHeader(3);
            writer.Write(x);
            writer.Write(y);
            writer.Write(z);
        }

        public Position Deserialize(ref MessagePackReader reader, MessagePackSerializerOptions options)
        {
            if (reader.ReadArrayHeader() != 3)
            {
                throw new MessagePackSerializationException("A position is an array of three coordinates.");
            }

            return new Position(reader.ReadSingle(), reader.ReadSingle(), reader.ReadSingle());
        }
    }

    public sealed record Ship(int Id, string Name, Position At);

    public sealed record Link(int Id, Link? Next);

    public sealed record Cargo(int Id, Dictionary<string, int> Items);
}
