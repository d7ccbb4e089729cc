using System.Net;
using System.Net.Sockets;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Bots;

/// <summary>A client connection that sends one request at a time and waits for its reply.</summary>
internal sealed class BotClient : IAsyncDisposable
{
    private static readonly TimeSpan ReplyTimeout = TimeSpan.FromSeconds(30);

    private readonly TcpClient _client;
    private readonly NetworkStream _stream;
    private int _nextRequestId;

    private BotClient(TcpClient client)
    {
        _client = client;
        _stream = client.GetStream();
    }

    public static async Task<BotClient> ConnectAsync(IPEndPoint endpoint, CancellationToken cancellationToken)
    {
        var client = new TcpClient { NoDelay = true };
        try
        {
            await client.ConnectAsync(endpoint, cancellationToken).ConfigureAwait(false);
            return new BotClient(client);
        }
        catch
        {
            client.Dispose();
            throw;
        }
    }

    public int NextRequestId() => Interlocked.Increment(ref _nextRequestId);

    /// <summary>Sends <paramref name="request"/> and returns its reply.</summary>
    /// <exception cref="IOException">The connection ended or the reply did not come in time.</exception>
    public async Task<GameProtocol.Message> RequestAsync(GameProtocol.Message request, CancellationToken cancellationToken)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(ReplyTimeout);
        try
        {
            await _stream.WriteAsync(Framing.Encode(request), timeout.Token).ConfigureAwait(false);
            var reply = await Framing.ReadAsync(_stream, timeout.Token).ConfigureAwait(false)
                ?? throw new IOException("The server closed the connection.");
            return reply.RequestId == request.RequestId
                ? reply
                : throw new InvalidDataException($"Reply {reply.RequestId} does not answer request {request.RequestId}.");
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new IOException($"No reply to {request.GetType().Name} within {ReplyTimeout.TotalSeconds:N0} s.");
        }
    }

    public ValueTask DisposeAsync()
    {
        _client.Dispose();
        return ValueTask.CompletedTask;
    }
}
