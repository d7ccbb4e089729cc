using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Codecs;

/// <summary>How the store treats the caller's key and the PBKDF2 cost, from the options and from the manifest.</summary>
public sealed class KeyOptionsTests : IDisposable
{
    private const string Passphrase = "correct horse battery staple";

    // Guards the run against today's unbounded behaviour (hours of PBKDF2); the assertion is the exception, not the time.
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(2);

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Theory]
    [InlineData(1)]
    [InlineData(1_000)]
    [InlineData(99_999)]
    [InlineData(10_000_001)]
    [InlineData(int.MaxValue)]
    public async Task OpenAsync_PassphraseIterationsOutOfBounds_ThrowsArgumentOutOfRangeNamingTheOption(int iterations)
    {
        var options = new StoreOptions { EncryptionPassphrase = Passphrase, PassphraseIterations = iterations };

        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => StellarStore.OpenAsync(_directory.Sub("store"), options).WaitAsync(HangGuard));

        Assert.Equal(nameof(StoreOptions.PassphraseIterations), error.ParamName);
        Assert.False(Directory.Exists(_directory.Sub("store")));
    }

    [Theory]
    [InlineData(10_000_001)]
    [InlineData(int.MaxValue)]
    public async Task OpenAsync_ManifestWithIterationCountAboveMaximum_ThrowsCorruptStoreExceptionNamingTheManifest(int iterations)
    {
        var path = _directory.Sub("store");
        Directory.CreateDirectory(path);
        var (info, masterKey) = KeyMaterial.Create(null, Passphrase, 1_000);

        // The count is checked before any key work, so not even a manifest signed with the store's key gets past it.
        var manifest = new Manifest { Encryption = info with { Iterations = iterations }, MacKey = Manifest.DeriveMacKey(masterKey) };
        var bytes = manifest.Serialize();
        await File.WriteAllBytesAsync(Path.Combine(path, StoreFileNames.Manifest), bytes);

        var open = StellarStore.OpenAsync(path, new StoreOptions { EncryptionPassphrase = Passphrase });
        var error = await Assert.ThrowsAsync<CorruptStoreException>(() => open.WaitAsync(HangGuard));

        Assert.Equal(Path.Combine(path, StoreFileNames.Manifest), error.Path);
        Assert.Contains("iteration", error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(Path.Combine(path, StoreFileNames.Manifest)));
    }

    [Fact]
    public async Task Options_AfterOpenWithKey_HoldNeitherTheCallersKeyNorAPassphrase()
    {
        var key = Enumerable.Range(0, 32).Select(i => (byte)(i + 1)).ToArray();
        var options = new StoreOptions { EncryptionKey = key, MaxShardBytes = 128 * 1024 };

        await using var store = await StellarStore.OpenAsync(_directory.Sub("store"), options);

        Assert.Null(store.Options.EncryptionKey);
        Assert.Null(store.Options.EncryptionPassphrase);
        Assert.Equal(128 * 1024, store.Options.MaxShardBytes);
        Assert.Same(key, options.EncryptionKey);
    }

    [Fact]
    public async Task OpenAsync_CallerClearsKeyAfterOpen_StoreKeepsReadingAndWriting()
    {
        var key = Enumerable.Range(0, 32).Select(i => (byte)(i + 1)).ToArray();
        var path = _directory.Sub("store");
        await using (var store = await StellarStore.OpenAsync(path, new StoreOptions { EncryptionKey = key }))
        {
            Array.Clear(key);
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            await players.UpsertAsync(new Player(1, "one", 1, 1));
            Assert.Equal("one", players.Get(1)?.Name);
        }

        var again = Enumerable.Range(0, 32).Select(i => (byte)(i + 1)).ToArray();
        await using var reopened = await StellarStore.OpenAsync(path, new StoreOptions { EncryptionKey = again });
        Assert.Equal("one", reopened.GetCollection<int, Player>("players", p => p.Id).Get(1)?.Name);
    }

    [Fact]
    public async Task DisposeAsync_OfEncryptedStore_ZeroesTheMasterKeyAndEverySubkeyItHeld()
    {
        var key = Enumerable.Range(0, 32).Select(i => (byte)(i + 1)).ToArray();
        var store = await StellarStore.OpenAsync(_directory.Sub("store"), new StoreOptions { EncryptionKey = key });
        await store.GetCollection<int, Player>("players", p => p.Id).UpsertAsync(new Player(1, "one", 1, 1));
        await store.GetCollection<int, Player>("others", p => p.Id).UpsertAsync(new Player(2, "two", 2, 2));
        var cipher = Assert.IsType<AesGcmBlockCipher>(store.Cipher);
        var held = cipher.Subkeys.Snapshot().Select(k => k.Subkey).Append(cipher.MasterKey).ToArray();
        Assert.Equal(3, held.Length);
        Assert.All(held, array => Assert.Contains(array, b => b != 0));

        await store.DisposeAsync();

        Assert.All(held, array => Assert.All(array, b => Assert.Equal(0, b)));
    }

    [Fact]
    public async Task OpenAsync_StoreWithMoreShardsThanTheSubkeyBound_ReadsEveryRecordAndHoldsAtMostTheBound()
    {
        var key = Enumerable.Range(0, 32).Select(i => (byte)(i + 1)).ToArray();
        var path = _directory.Sub("store");
        var options = new StoreOptions { EncryptionKey = key, MaxShardBytes = 64 * 1024, CompactionThreshold = 0, LargeValueThreshold = 1024 };
        var filler = new string('z', 2_000);
        const int Records = 3_000;
        await using (var store = await StellarStore.OpenAsync(path, options))
        {
            var players = store.GetCollection<int, Player>("players", p => p.Id);
            for (var start = 0; start < Records; start += 25)
            {
                await players.WriteAsync(b =>
                {
                    for (var i = start; i < start + 25; i++)
                    {
                        b.Upsert(new Player(i, $"{i}:{filler}", i, i));
                    }
                });
            }
        }

        var shards = Directory.GetFiles(path, "*.shard").Length;
        Assert.True(shards > SubkeyCache.DefaultCapacity, $"only {shards} shards");
        await using var reopened = await StellarStore.OpenAsync(path, options);
        var again = reopened.GetCollection<int, Player>("players", p => p.Id);
        for (var i = 0; i < Records; i++)
        {
            Assert.Equal($"{i}:{filler}", again.Get(i)?.Name);
        }

        Assert.InRange(reopened.Cipher!.Subkeys.Count, 1, SubkeyCache.DefaultCapacity);
    }
}
