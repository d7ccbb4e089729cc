using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Stellar.Store.Hosting.Tests;

/// <summary>Real hosts for the tests: no appsettings, environment or command line, so each test's services are all there is.</summary>
internal static class TestHosts
{
    public static IHost Build(Action<HostApplicationBuilder> configure, string? contentRoot = null)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true, ContentRootPath = contentRoot });
        configure(builder);
        return builder.Build();
    }

    public static IHost Build(Action<StellarStoreOptions> configure) => Build(b => b.Services.AddStellarStore(configure));

    public static Collection<int, Player> Players(StellarStore store) => store.GetCollection<int, Player>("players", p => p.Id);

    public static List<Player> Team(int count, string tag) =>
        Enumerable.Range(1, count).Select(i => new Player(i, $"{tag}-{i}", i % 50)).ToList();

    /// <summary>Opens the directory directly, as a program would after the host is gone, and reads back every player.</summary>
    public static async Task<Dictionary<int, Player>> ReadBackAsync(string path, StoreOptions? options = null)
    {
        await using var store = await StellarStore.OpenAsync(path, options);
        return Players(store).Query().ToDictionary(p => p.Id);
    }
}
