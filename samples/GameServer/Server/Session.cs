using System.Net.Sockets;
using System.Threading.Channels;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// One client connection: a read loop that hands each request to the server, and a write loop that sends the
/// frames queued by <see cref="Send"/> (from the tick thread or from a store completion) in order.
/// </summary>
internal sealed class Session
{
    private readonly TcpClient _client;
    private readonly Channel<byte[]> _outbox = Channel.CreateUnbounded<byte[]>(new UnboundedChannelOptions { SingleReader = true });
    private int _closed;

    public Session(int id, TcpClient client)
    {
        Id = id;
        _client = client;
        _client.NoDelay = true;
    }

    public int Id { get; }

    /// <summary>The character played on this connection; read and written on the tick thread only.</summary>
    public Player? Player { get; set; }

    /// <summary>Whether a login is being loaded for this connection; tick thread only.</summary>
    public bool LoggingIn { get; set; }

    public bool Closed => Volatile.Read(ref _closed) != 0;

    /// <summary>Queues <paramref name="message"/> for sending; dropped when the connection is closed. Any thread.</summary>
    public void Send(GameProtocol.Message message)
    {
        if (!Closed)
        {
            _outbox.Writer.TryWrite(Framing.Encode(message));
        }
    }

    /// <summary>
    /// Reads requests and passes each to <paramref name="onRequest"/> until the client disconnects, a frame is bad,
    /// or <see cref="Close"/> is called; then closes the connection.
    /// </summary>
    public async Task RunAsync(Action<Session, GameProtocol.Message> onRequest)
    {
        NetworkStream stream;
        try
        {
            stream = _client.GetStream();
        }
        catch (ObjectDisposedException)
        {
            return; // closed before it ran: a server that faulted or stopped as the connection came in
        }

        var writer = WriteLoopAsync(stream);
        try
        {
            while (await Framing.ReadAsync(stream, CancellationToken.None).ConfigureAwait(false) is { } request)
            {
                onRequest(this, request);
            }
        }
        catch (Exception e) when (e is IOException or InvalidDataException or SocketException or ObjectDisposedException)
        {
            // A client that vanished or spoke nonsense just loses its connection.
        }
        finally
        {
            Close();
            await writer.ConfigureAwait(false);
        }
    }

    /// <summary>Ends the connection; frames not yet sent are dropped. Any thread.</summary>
    public void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) == 0)
        {
            _outbox.Writer.TryComplete();
            _client.Dispose(); // ends a pending read or write with an exception
        }
    }

    private async Task WriteLoopAsync(NetworkStream stream)
    {
        try
        {
            await foreach (var frame in _outbox.Reader.ReadAllAsync().ConfigureAwait(false))
            {
                await stream.WriteAsync(frame).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException)
        {
            Close();
        }
    }
}
