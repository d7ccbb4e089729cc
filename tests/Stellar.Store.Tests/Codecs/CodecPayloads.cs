using System.Text;

namespace Stellar.Store.Tests.Codecs;

/// <summary>The payload shapes every codec suite runs against, by name so theory cases stay readable.</summary>
internal static class CodecPayloads
{
    public const string Empty = "empty";
    public const string OneByte = "1 byte";
    public const string Tiny = "64 B repetitive";
    public const string Text2K = "2 KB English-like text";
    public const string Random4K = "4 KB random";
    public const string Compressible16M = "16 MiB compressible";

    private static readonly string[] Words =
    [
        "the", "player", "guild", "trades", "sword", "shield", "gold", "with", "a", "merchant", "near", "castle",
        "quest", "dragon", "inventory", "potion", "level", "and", "then", "leaves", "for", "northern", "village",
        "armor", "rare", "epic", "raid", "boss", "drops", "loot", "while", "team", "waits", "at", "gate", "of",
    ];

    // Built once: several suites and theory cases share the 16 MiB payload, and generating it is not free.
    private static readonly Lazy<byte[]> Large = new(() => EnglishLikeText(16 * 1024 * 1024, seed: 16));

    public static IEnumerable<object[]> AllNames() =>
        new[] { Empty, OneByte, Tiny, Text2K, Random4K, Compressible16M }.Select(name => new object[] { name });

    /// <summary>Returns the payload called <paramref name="name"/>; the same bytes on every call.</summary>
    public static byte[] Get(string name) => name switch
    {
        Empty => [],
        OneByte => [0x2A],
        Tiny => Encoding.ASCII.GetBytes(string.Concat(Enumerable.Repeat("hp=100;", 10)))[..64],
        Text2K => EnglishLikeText(2048, seed: 2),
        Random4K => RandomBytes(4096, seed: 4),
        Compressible16M => Large.Value,
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, "unknown payload"),
    };

    /// <summary>Words from a small game vocabulary in random order: compresses the way real text does.</summary>
    public static byte[] EnglishLikeText(int length, int seed)
    {
        var random = new Random(seed);
        var text = new StringBuilder(length + 16);
        while (text.Length < length)
        {
            text.Append(Words[random.Next(Words.Length)]);
            text.Append(random.Next(12) == 0 ? ". " : " ");
        }

        return Encoding.ASCII.GetBytes(text.ToString(0, length));
    }

    /// <summary>Seeded random bytes: incompressible, and the same on every run.</summary>
    public static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
