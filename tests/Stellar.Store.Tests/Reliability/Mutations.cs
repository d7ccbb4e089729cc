using System.Buffers.Binary;

namespace Stellar.Store.Tests.Reliability;

/// <summary>Seeded byte-level mutations, including the length prefixes a decoder might trust too far.</summary>
internal static class Mutations
{
    private static readonly byte[][] Poison =
    [
        [0xc0],                               // MessagePack nil
        [0xdd, 0x7f, 0xff, 0xff, 0xff],       // array32 claiming 2^31 - 1 elements
        [0xdf, 0x7f, 0xff, 0xff, 0xff],       // map32 claiming 2^31 - 1 entries
        [0xdb, 0x7f, 0xff, 0xff, 0xff],       // str32 claiming 2 GiB
        [0xc6, 0x7f, 0xff, 0xff, 0xff],       // bin32 claiming 2 GiB
        [0xc9, 0x7f, 0xff, 0xff, 0xff, 0x01], // ext32 claiming 2 GiB
        [0xdc, 0xff, 0xff],                   // array16 of 65,535
        [0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91], // deep nesting
    ];

    /// <summary>One to four random edits of <paramref name="data"/>; <paramref name="what"/> says which.</summary>
    public static byte[] Mutate(byte[] data, Random random, out string what)
    {
        var bytes = new List<byte>(data);
        var edits = new List<string>();
        for (var n = random.Next(1, 5); n > 0; n--)
        {
            var at = bytes.Count == 0 ? 0 : random.Next(bytes.Count);
            switch (random.Next(8))
            {
                case 0 when bytes.Count > 0:
                    bytes[at] ^= (byte)(1 << random.Next(8));
                    edits.Add($"flip at {at}");
                    break;
                case 1 when bytes.Count > 0:
                    bytes[at] = (byte)random.Next(256);
                    edits.Add($"byte at {at}");
                    break;
                case 2 when bytes.Count >= 4:
                    at = random.Next(bytes.Count - 3);
                    var value = new[] { 0, 1, -1, int.MaxValue, int.MinValue, bytes.Count, bytes.Count + 1, random.Next() }[random.Next(8)];
                    var le = new byte[4];
                    BinaryPrimitives.WriteInt32LittleEndian(le, value);
                    for (var i = 0; i < 4; i++)
                    {
                        bytes[at + i] = le[i];
                    }

                    edits.Add($"int {value} at {at}");
                    break;
                case 3:
                    var inserted = new byte[random.Next(1, 17)];
                    random.NextBytes(inserted);
                    bytes.InsertRange(at, inserted);
                    edits.Add($"{inserted.Length} bytes inserted at {at}");
                    break;
                case 4 when bytes.Count > 0:
                    var count = random.Next(1, Math.Min(32, bytes.Count - at) + 1);
                    bytes.RemoveRange(at, count);
                    edits.Add($"{count} bytes removed at {at}");
                    break;
                case 5 when bytes.Count > 0:
                    bytes.RemoveRange(at, bytes.Count - at);
                    edits.Add($"cut to {at}");
                    break;
                case 6 when bytes.Count > 0:
                    var length = random.Next(1, Math.Min(64, bytes.Count - at) + 1);
                    bytes.InsertRange(random.Next(bytes.Count + 1), bytes.GetRange(at, length));
                    edits.Add($"{length} bytes from {at} duplicated");
                    break;
                default:
                    var poison = Poison[random.Next(Poison.Length)];
                    bytes.InsertRange(at, poison);
                    edits.Add($"poison {Convert.ToHexString(poison)} at {at}");
                    break;
            }
        }

        what = string.Join(", ", edits);
        return bytes.ToArray();
    }
}
