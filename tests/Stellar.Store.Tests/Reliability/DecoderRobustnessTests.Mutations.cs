using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using Stellar.Store.Codecs;
using Stellar.Store.Format;

namespace Stellar.Store.Tests.Reliability;

/// <summary>The seeded mutations <see cref="DecoderRobustnessTests"/> applies: to a shard's blocks and to a manifest, resealed or not.</summary>
public sealed partial class DecoderRobustnessTests
{
    private static byte[] MutateShard(Template template, byte[] shard, Random random, out string what, out bool resealed)
    {
        resealed = true;
        var blocks = BlockSurgery.Blocks(shard);
        var index = random.Next(blocks.Count);
        var (offset, length) = blocks[index];
        var block = shard.AsSpan(offset, length).ToArray();
        var header = BlockHeader.TryRead(block, out _)!.Value;
        var salt = ShardFiles.Salt(shard);
        byte[] replacement;
        switch (random.Next(4))
        {
            case 0:
            {
                // The records themselves, re-encoded as the store would: compressed, encrypted and checksummed.
                var raw = Mutations.Mutate(template.Codec.Decode(block, header, salt, "template", offset), random, out var edits);
                var count = random.Next(4) == 0 ? (uint)random.Next(0, (int)header.RecordCount * 2 + 2) : header.RecordCount;
                var encoded = template.Codec.Encode(header.CollectionId, header.ShardId, salt, header.Sequence, count, BlockFlags.None, raw, out var encodedLength);
                replacement = encoded.AsSpan(0, encodedLength).ToArray();
                ArrayPool<byte>.Shared.Return(encoded);
                what = $"block {index}: records re-encoded with {count} of {header.RecordCount} records after {edits}";
                break;
            }

            case 1:
            {
                // The stored payload (the LZ4 stream when compressed), re-encrypted and resealed under a raw length
                // that may no longer match it.
                var payload = Payload(template, block, header, salt);
                var mutated = Mutations.Mutate(payload, random, out var edits);
                var rawLength = random.Next(3) == 0 ? random.Next(0, (header.RawLength * 4) + 1024) : header.RawLength;
                var flags = random.Next(5) == 0 ? header.Flags ^ BlockFlags.Compressed : header.Flags;
                replacement = Assemble(template, header with { RawLength = rawLength, Flags = flags }, mutated, salt);
                what = $"block {index}: payload ({header.Flags}) {edits}, raw length {rawLength} of {header.RawLength}, flags {flags}";
                break;
            }

            case 2:
            {
                // Header fields, with both checksums resealed; encrypted blocks must then fail authentication.
                var edited = random.Next(4) switch
                {
                    0 => header with { RecordCount = random.Next(2) == 0 ? header.RecordCount + 1 : (uint)random.Next() },
                    1 => header with { RawLength = random.Next(0, (header.RawLength * 4) + 1024) },
                    2 => header with { Sequence = header.Sequence + (ulong)random.Next(1, 3) },
                    _ => header with { Flags = header.Flags ^ BlockFlags.Compressed },
                };
                replacement = BlockSurgery.WithHeader(block, edited);
                what = $"block {index}: header {header} -> {edited}";
                break;
            }

            default:
            {
                // Plain damage that the checksums must catch.
                replacement = Mutations.Mutate(block, random, out var edits);
                resealed = false;
                what = $"block {index}: not resealed, {edits}";
                break;
            }
        }

        return [.. shard.AsSpan(0, offset), .. replacement, .. shard.AsSpan(offset + length)];
    }

    private static byte[] Payload(Template template, byte[] block, BlockHeader header, byte[] salt)
    {
        var stored = block.AsSpan(header.HeaderLength);
        if (template.Cipher is null)
        {
            return stored.ToArray();
        }

        var plain = new byte[stored.Length - template.Cipher.Overhead];
        Assert.True(template.Cipher.TryDecrypt(header.CollectionId, header.ShardId, salt, header.Sequence, stored, plain, block.AsSpan(0, header.AadLength)));
        return plain;
    }

    private static byte[] Assemble(Template template, BlockHeader header, byte[] payload, byte[] salt)
    {
        header = header with { PayloadLength = payload.Length + (template.Cipher?.Overhead ?? 0) };
        var block = new byte[header.BlockLength];
        header.WriteTo(block);
        if (template.Cipher is null)
        {
            payload.CopyTo(block.AsSpan(header.HeaderLength));
        }
        else
        {
            template.Cipher.Encrypt(header.CollectionId, header.ShardId, salt, header.Sequence, payload, block.AsSpan(header.HeaderLength), block.AsSpan(0, header.AadLength));
        }

        BlockHeader.WriteBlockCrc(block);
        return block;
    }

    private static byte[] MutateManifest(byte[] manifest, byte[]? macKey, Random random, out string what, out bool resealed)
    {
        resealed = true;
        var body = ManifestSurgery.Body(manifest);
        byte[] mutated;
        switch (random.Next(5))
        {
            case 0:
                // The JSON text itself, resealed: usually no longer JSON.
                mutated = Mutations.Mutate(body, random, out what);
                break;
            case 1:
                // Not resealed: the checksum must catch it.
                resealed = false;
                return Mutations.Mutate(manifest, random, out what);
            default:
                // Valid JSON, resealed, with one to three values replaced, removed or duplicated.
                var root = JsonNode.Parse(body)!;
                var edits = new List<string>();
                for (var n = random.Next(1, 4); n > 0; n--)
                {
                    edits.Add(EditJson(root, random));
                }

                mutated = Encoding.UTF8.GetBytes(root.ToJsonString());
                what = string.Join("; ", edits);
                break;
        }

        // Signed again when the store is encrypted, so that the checks behind the MAC are reached too.
        return ManifestSurgery.Reseal(manifest, mutated, macKey);
    }

    private static string EditJson(JsonNode root, Random random)
    {
        var nodes = new List<JsonNode>();
        Collect(root, nodes);
        var target = nodes[random.Next(1, nodes.Count)];
        var parent = target.Parent!;
        JsonNode? Replacement() => random.Next(14) switch
        {
            0 => null,
            1 => JsonValue.Create(0),
            2 => JsonValue.Create(-1),
            3 => JsonValue.Create(uint.MaxValue),
            4 => JsonValue.Create(4294967296L),
            5 => JsonValue.Create(1.5),
            6 => JsonValue.Create(""),
            7 => JsonValue.Create("../x"),
            8 => JsonValue.Create(true),
            9 => new JsonArray(),
            10 => new JsonObject(),
            11 => new JsonArray(JsonValue.Create(1), JsonValue.Create(1)),
            12 => JsonValue.Create(random.Next(1, 5)),
            _ => nodes[random.Next(nodes.Count)].DeepClone(),
        };

        var path = target.GetPath();
        switch (random.Next(4))
        {
            case 0 when parent is JsonObject obj:
                obj.Remove(target.GetPropertyName());
                return $"removed {path}";
            case 1 when parent is JsonArray array:
                array.Add(target.DeepClone());
                return $"duplicated {path}";
            default:
                var value = Replacement();
                target.ReplaceWith(value);
                return $"{path} = {value?.ToJsonString() ?? "null"}";
        }
    }

    private static void Collect(JsonNode node, List<JsonNode> nodes)
    {
        nodes.Add(node);
        switch (node)
        {
            case JsonObject obj:
                foreach (var (_, child) in obj.ToList())
                {
                    if (child is not null)
                    {
                        Collect(child, nodes);
                    }
                }

                break;
            case JsonArray array:
                foreach (var child in array.ToList())
                {
                    if (child is not null)
                    {
                        Collect(child, nodes);
                    }
                }

                break;
        }
    }
}
