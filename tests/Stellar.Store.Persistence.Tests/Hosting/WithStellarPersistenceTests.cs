using Akka.Actor;
using Akka.Hosting;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Stellar.Store.Persistence.Hosting;
using Stellar.Store.Persistence.Query;
using Stellar.Store.Persistence.Tests.Tck.Query;

namespace Stellar.Store.Persistence.Tests.Hosting;

/// <summary>The plugins configured through Akka.Hosting alone: persisted events outlive the host and are queried by tag.</summary>
public sealed class WithStellarPersistenceTests : IDisposable
{
    private readonly string _directory = PluginTestConfig.NewDirectory();

    [Fact]
    public async Task WithStellarPersistence_WhenTheHostRestarts_RecoversEventsAndQueriesThemByTag()
    {
        await using (var host = await StartAsync())
        {
            var actor = host.System.ActorOf(QueryTestActor.Props("player-1"));
            foreach (var text in new[] { "a green apple", "a black car", "a green leaf" })
            {
                Assert.Equal(text + "-done", await actor.Ask<string>(text, TimeSpan.FromSeconds(10)));
            }
        }

        await using (var host = await StartAsync())
        {
            var journal = PersistenceQuery.Get(host.System).ReadJournalFor<StellarReadJournal>(StellarReadJournal.Identifier);
            using var materializer = host.System.Materializer();
            var all = await journal.CurrentEventsByPersistenceId("player-1", 0, long.MaxValue).Select(e => (string)e.Event).RunWith(Sink.Seq<string>(), materializer);
            Assert.Equal(["a green apple", "a black car", "a green leaf"], all);
            var green = await journal.CurrentEventsByTag("green", Offset.NoOffset()).Select(e => (string)e.Event).RunWith(Sink.Seq<string>(), materializer);
            Assert.Equal(["a green apple", "a green leaf"], green);
        }
    }

    public void Dispose() => PluginTestConfig.Delete(_directory);

    private async Task<RunningHost> StartAsync()
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Services.AddAkka("hosting-test", akka => akka.WithStellarPersistence(
            _directory,
            Durability.Fsync,
            journal => journal.AddWriteEventAdapter<ColorFruitTagger>("color-tagger", [typeof(string)])));
        var host = builder.Build();
        await host.StartAsync();
        return new RunningHost(host);
    }

    private sealed class RunningHost(IHost host) : IAsyncDisposable
    {
        public ActorSystem System { get; } = host.Services.GetRequiredService<ActorSystem>();

        public async ValueTask DisposeAsync()
        {
            await host.StopAsync();
            host.Dispose();
        }
    }
}
