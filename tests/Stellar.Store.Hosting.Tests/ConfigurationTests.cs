using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Stellar.Store.Hosting.Tests;

/// <summary>
/// <c>AddStellarStore(configuration.GetSection("Stellar"))</c> from an in-memory configuration: what binds, and every
/// bad option failing the host's start with an <see cref="OptionsValidationException"/> that names it, before anything
/// is created on disk.
/// </summary>
public sealed class ConfigurationTests : IDisposable
{
    private static readonly byte[] Key = Enumerable.Range(1, 32).Select(i => (byte)i).ToArray();

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static IHost HostWith(Dictionary<string, string?> settings) => TestHosts.Build(b =>
    {
        b.Configuration.AddInMemoryCollection(settings);
        b.Services.AddStellarStore(b.Configuration.GetSection("Stellar"));
    });

    [Fact]
    public async Task AddStellarStore_FromASection_OpensTheStoreWithEveryBoundOption()
    {
        var path = _dir.Sub("store");
        using (var host = HostWith(new()
        {
            ["Stellar:Path"] = path,
            ["Stellar:Durability"] = "Fsync",
            ["Stellar:Compression"] = "lz4",
            ["Stellar:EncryptionKey"] = Convert.ToBase64String(Key),
            ["Stellar:MaxShardBytes"] = "131072",
            ["Stellar:CopyOnRead"] = "true",
            ["Stellar:ExpirySweepInterval"] = "00:00:05",
        }))
        {
            await host.StartAsync();
            var store = host.Services.GetRequiredService<StellarStore>();
            Assert.Equal(Path.GetFullPath(path), store.Path);
            Assert.Equal(Durability.Fsync, store.Options.Durability);
            Assert.Equal(Compression.Lz4, store.Options.Compression);
            Assert.Equal(131072, store.Options.MaxShardBytes);
            Assert.True(store.Options.CopyOnRead);
            Assert.Equal(TimeSpan.FromSeconds(5), store.Options.ExpirySweepInterval);
            await TestHosts.Players(store).InsertAsync(new Player(7, "bound", 3));
            await host.StopAsync();
        }

        // The key from configuration is the store's key: the directory opens with it and refuses to open without it.
        Assert.Equal(new Player(7, "bound", 3), (await TestHosts.ReadBackAsync(path, new StoreOptions { EncryptionKey = Key }))[7]);
        await Assert.ThrowsAsync<WrongKeyException>(() => TestHosts.ReadBackAsync(path));
    }

    public static TheoryData<string, Dictionary<string, string?>, string> BadOptions() => new()
    {
        { "no path", new() { ["Stellar:Durability"] = "Fsync" }, "StellarStoreOptions.Path is required" },
        { "empty path", new() { ["Stellar:Path"] = " " }, "StellarStoreOptions.Path is required" },
        { "path with a NUL", new() { ["Stellar:Path"] = "saves\0world1" }, "StellarStoreOptions.Path is not a valid path" },
        {
            "key and passphrase", new()
            {
                ["Stellar:Path"] = "store",
                ["Stellar:EncryptionKey"] = Convert.ToBase64String(Key),
                ["Stellar:EncryptionPassphrase"] = "correct horse",
            },
            "StellarStoreOptions.Store.EncryptionPassphrase: Set EncryptionKey or EncryptionPassphrase, not both."
        },
        {
            "key of 16 bytes", new() { ["Stellar:Path"] = "store", ["Stellar:EncryptionKey"] = Convert.ToBase64String(new byte[16]) },
            "StellarStoreOptions.Store.EncryptionKey: EncryptionKey must be 32 bytes (AES-256); it is 16."
        },
        {
            "key not in base64", new() { ["Stellar:Path"] = "store", ["Stellar:EncryptionKey"] = "not-base64-secret-material!" },
            "'Stellar:EncryptionKey'"
        },
        {
            "key not in base64, bound as the Store property", new() { ["Stellar:Path"] = "store", ["Stellar:Store:EncryptionKey"] = "not-base64-secret-material!" },
            "'Stellar:Store:EncryptionKey'"
        },
        { "unknown durability", new() { ["Stellar:Path"] = "store", ["Stellar:Durability"] = "Sometimes" }, "'Stellar:Durability'" },
        { "shard too small", new() { ["Stellar:Path"] = "store", ["Stellar:MaxShardBytes"] = "1024" }, "StellarStoreOptions.Store.MaxShardBytes" },
    };

    [Theory]
    [MemberData(nameof(BadOptions))]
    public async Task StartAsync_WithABadOption_FailsWithAnOptionsValidationExceptionNamingItAndCreatesNothing(string bad, Dictionary<string, string?> settings, string named)
    {
        var path = _dir.Sub("store");
        if (settings.TryGetValue("Stellar:Path", out var relative) && relative == "store")
        {
            settings["Stellar:Path"] = path;
        }

        using var host = HostWith(settings);
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
        Assert.True(failure.Message.Contains(named, StringComparison.Ordinal), $"{bad}: the message '{failure.Message}' does not name '{named}'");
        Assert.False(Directory.Exists(path), $"{bad}: the store was created although its options are bad");
        foreach (var secret in new[] { "Stellar:EncryptionKey", "Stellar:EncryptionPassphrase", "Stellar:Store:EncryptionKey" }.Select(k => settings.GetValueOrDefault(k)).OfType<string>())
        {
            Assert.False(failure.Message.Contains(secret, StringComparison.Ordinal), $"{bad}: the message '{failure.Message}' shows a secret");
        }
    }

    [Fact]
    public async Task StartAsync_WithABadOptionSetInCode_FailsWithAnOptionsValidationExceptionNamingIt()
    {
        using var host = TestHosts.Build(o =>
        {
            o.Path = _dir.Sub("store");
            o.Store = new StoreOptions { EncryptionKey = new byte[31] };
        });
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
        Assert.Contains("StellarStoreOptions.Store.EncryptionKey", failure.Message, StringComparison.Ordinal);
    }
}
