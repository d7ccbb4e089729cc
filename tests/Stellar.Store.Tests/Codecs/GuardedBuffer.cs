namespace Stellar.Store.Tests.Codecs;

/// <summary>
/// A buffer with guard bytes on both sides, so a test can prove a codec wrote nothing outside the span it was given.
/// </summary>
internal sealed class GuardedBuffer
{
    private const int GuardSize = 64;
    private const byte GuardByte = 0xA5;

    private readonly byte[] _bytes;

    public GuardedBuffer(int length)
    {
        Length = length;
        _bytes = new byte[length + 2 * GuardSize];
        _bytes.AsSpan(0, GuardSize).Fill(GuardByte);
        _bytes.AsSpan(GuardSize + length).Fill(GuardByte);
    }

    public int Length { get; }

    public Span<byte> Span => _bytes.AsSpan(GuardSize, Length);

    public void AssertGuardsIntact()
    {
        Assert.True(_bytes.AsSpan(0, GuardSize).IndexOfAnyExcept(GuardByte) < 0, "wrote before the start of the buffer");
        Assert.True(_bytes.AsSpan(GuardSize + Length).IndexOfAnyExcept(GuardByte) < 0, "wrote past the end of the buffer");
    }
}
