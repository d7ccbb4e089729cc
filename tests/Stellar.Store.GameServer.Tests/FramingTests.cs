using System.Buffers.Binary;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.GameServer.Tests;

public sealed class FramingTests
{
    [Fact]
    public async Task ReadAsync_OfEncodedMessages_ReturnsThemInOrderThenNull()
    {
        var scores = new GameProtocol.Scores(7, [new ScoreRecord(1, "a", 10), new ScoreRecord(2, "b", 5)]);
        var stream = new MemoryStream([.. Framing.Encode(new GameProtocol.Trade(3, 25)), .. Framing.Encode(scores)]);

        Assert.Equal(new GameProtocol.Trade(3, 25), await Framing.ReadAsync(stream, CancellationToken.None));
        var read = Assert.IsType<GameProtocol.Scores>(await Framing.ReadAsync(stream, CancellationToken.None));
        Assert.Equal(7, read.RequestId);
        Assert.Equal(scores.Top, read.Top);
        Assert.Null(await Framing.ReadAsync(stream, CancellationToken.None));
    }

    [Fact]
    public async Task ReadAsync_WhenFrameIsCutShort_ThrowsInvalidData()
    {
        var frame = Framing.Encode(new GameProtocol.Login(1, "someone"));
        var stream = new MemoryStream(frame[..^2]);

        await Assert.ThrowsAsync<InvalidDataException>(() => Framing.ReadAsync(stream, CancellationToken.None));
    }

    [Fact]
    public async Task ReadAsync_WhenLengthIsTooLarge_ThrowsInvalidDataWithoutReadingIt()
    {
        var header = new byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(header, Framing.MaxFrameBytes + 1);

        await Assert.ThrowsAsync<InvalidDataException>(() => Framing.ReadAsync(new MemoryStream(header), CancellationToken.None));
    }

    [Fact]
    public async Task ReadAsync_WhenPayloadIsNotAMessage_ThrowsInvalidData()
    {
        var stream = new MemoryStream([3, 0, 0, 0, 0xc1, 0xc1, 0xc1]);

        await Assert.ThrowsAsync<InvalidDataException>(() => Framing.ReadAsync(stream, CancellationToken.None));
    }
}
