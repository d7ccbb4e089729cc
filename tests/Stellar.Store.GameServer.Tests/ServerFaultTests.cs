using System.Net;
using Stellar.Store.Samples.GameServer.Bots;
using Stellar.Store.Samples.GameServer.Protocol;
using Stellar.Store.Samples.GameServer.Server;

namespace Stellar.Store.GameServer.Tests;

/// <summary>
/// A write that fails leaves the server's memory holding a change the store does not: it drops every connection and
/// serves nobody from then on, the clients that connect after the fault included.
/// </summary>
public sealed class ServerFaultTests
{
    [Fact]
    public async Task Server_AfterAWriteFailed_DropsEveryConnectionAndServesNoNewOne()
    {
        await using var store = new HeldWritesStore();
        var server = new TcpGameServer(store, new IPEndPoint(IPAddress.Loopback, 0));
        try
        {
            server.Start();
            await using (var first = await BotClient.ConnectAsync(server.EndPoint, CancellationToken.None))
            {
                Assert.IsType<GameProtocol.LoggedIn>(await first.RequestAsync(new GameProtocol.Login(first.NextRequestId(), "a"), CancellationToken.None));

                // The score's write fails: no reply, the connection is dropped.
                store.FailScores = true;
                await Assert.ThrowsAnyAsync<IOException>(() => first.RequestAsync(new GameProtocol.SubmitScore(first.NextRequestId(), 10), CancellationToken.None));
                Assert.NotNull(server.Tracker.Fault);
            }

            await using var second = await BotClient.ConnectAsync(server.EndPoint, CancellationToken.None);
            var reply = await Record.ExceptionAsync(() => second.RequestAsync(new GameProtocol.Login(second.NextRequestId(), "b"), CancellationToken.None));
            Assert.IsAssignableFrom<IOException>(reply);
            Assert.Null(store.GetAccount("b"));
        }
        finally
        {
            await server.StopAsync();
        }
    }
}
