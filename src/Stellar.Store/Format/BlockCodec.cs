using System.Buffers;
using System.Diagnostics;
using Stellar.Store.Codecs;

namespace Stellar.Store.Format;

/// <summary>
/// Turns the raw record bytes of a block into the bytes on disk and back: compress (when it shrinks), then
/// encrypt with the header as associated data, then checksum. On the way back the checksum and the
/// authentication tag are verified before anything is decompressed or parsed.
/// </summary>
/// <remarks>Thread safety: stateless apart from its compressor and cipher, which are thread-safe; blocks are
/// encoded and decoded on many threads at once.</remarks>
internal sealed class BlockCodec
{
    private readonly ICompressor? _compressor;
    private readonly ICompressor _decompressor;
    private readonly IBlockCipher? _cipher;

    /// <param name="compressor">Compresses new blocks; null stores them raw.</param>
    /// <param name="decompressor">Decodes compressed blocks, whatever the current option (it may have changed since they were written).</param>
    /// <param name="cipher">Encrypts and authenticates every block; null for a plain store.</param>
    public BlockCodec(ICompressor? compressor, ICompressor decompressor, IBlockCipher? cipher)
    {
        _compressor = compressor;
        _decompressor = decompressor;
        _cipher = cipher;
        MaxRawLength = BlockLimit.MaxRawLength(compressor, cipher?.Overhead ?? 0);
    }

    /// <summary>The most raw bytes one block may hold so that the reader accepts it (see <see cref="BlockLimit"/>).</summary>
    public int MaxRawLength { get; }

    /// <summary>
    /// Encodes a block, with the compact header of format 3, of the shard whose salt is <paramref name="shardSalt"/> (empty for a format-1 shard). Returns a buffer rented from <see cref="ArrayPool{T}.Shared"/> holding the whole block in
    /// its first <paramref name="length"/> bytes; the caller returns it to the pool.
    /// </summary>
    public byte[] Encode(uint collectionId, uint shardId, ReadOnlySpan<byte> shardSalt, ulong sequence, uint recordCount, BlockFlags extraFlags,
        ReadOnlySpan<byte> raw, out int length)
    {
        Debug.Assert(raw.Length <= MaxRawLength, "the engine sizes every block within the reader's bound");
        byte[]? compressed = null;
        try
        {
            var flags = extraFlags;
            ReadOnlySpan<byte> body = raw;
            if (_compressor is not null && raw.Length > 0)
            {
                compressed = ArrayPool<byte>.Shared.Rent(_compressor.MaxCompressedLength(raw.Length));
                var compressedLength = _compressor.TryCompress(raw, compressed);
                if (compressedLength >= 0)
                {
                    body = compressed.AsSpan(0, compressedLength);
                    flags |= BlockFlags.Compressed;
                }
            }

            if (_cipher is not null)
            {
                flags |= BlockFlags.Encrypted;
            }

            var payloadLength = body.Length + (_cipher?.Overhead ?? 0);
            var header = new BlockHeader(flags, collectionId, shardId, sequence, recordCount, payloadLength, raw.Length, Compact: true);
            length = header.BlockLength;
            var block = ArrayPool<byte>.Shared.Rent(length);
            var span = block.AsSpan(0, length);
            header.WriteTo(span);
            var headerLength = header.HeaderLength;
            if (_cipher is not null)
            {
                _cipher.Encrypt(collectionId, shardId, shardSalt, sequence, body, span[headerLength..], span[..header.AadLength]);
            }
            else
            {
                body.CopyTo(span[headerLength..]);
            }

            BlockHeader.WriteBlockCrc(span);
            return block;
        }
        finally
        {
            if (compressed is not null)
            {
                ArrayPool<byte>.Shared.Return(compressed);
            }
        }
    }

    /// <summary>
    /// Verifies and decodes a whole block (header and payload) whose header was already parsed, of the shard whose
    /// salt is <paramref name="shardSalt"/>. Returns the raw
    /// record bytes (a new array), or throws <see cref="CorruptBlockException"/> naming <paramref name="path"/>
    /// and <paramref name="offset"/>.
    /// </summary>
    public byte[] Decode(ReadOnlySpan<byte> block, in BlockHeader header, ReadOnlySpan<byte> shardSalt, string path, long offset)
    {
        if (!BlockHeader.HasValidBlockCrc(block))
        {
            throw new CorruptBlockException(path, offset, "block checksum mismatch");
        }

        var payload = block[header.HeaderLength..];
        byte[]? decrypted = null;
        try
        {
            if ((header.Flags & BlockFlags.Encrypted) != 0)
            {
                if (_cipher is null)
                {
                    throw new CorruptBlockException(path, offset, "the block is encrypted but the store is not");
                }

                if (payload.Length < _cipher.Overhead)
                {
                    throw new CorruptBlockException(path, offset, "the encrypted payload is shorter than its tag");
                }

                decrypted = ArrayPool<byte>.Shared.Rent(payload.Length - _cipher.Overhead);
                var plain = decrypted.AsSpan(0, payload.Length - _cipher.Overhead);
                if (!_cipher.TryDecrypt(header.CollectionId, header.ShardId, shardSalt, header.Sequence, payload, plain,
                        block[..header.AadLength]))
                {
                    throw new CorruptBlockException(path, offset, "authentication failed (the block or its header was altered)");
                }

                payload = plain;
            }
            else if (_cipher is not null)
            {
                throw new CorruptBlockException(path, offset, "the block is not encrypted but the store is");
            }

            CheckRawLength(header, payload.Length, path, offset);
            var raw = new byte[header.RawLength];
            if ((header.Flags & BlockFlags.Compressed) != 0)
            {
                try
                {
                    _decompressor.Decompress(payload, raw);
                }
                catch (InvalidDataException e)
                {
                    throw new CorruptBlockException(path, offset, "the compressed payload does not decode", e);
                }
            }
            else
            {
                payload.CopyTo(raw);
            }

            return raw;
        }
        finally
        {
            if (decrypted is not null)
            {
                ArrayPool<byte>.Shared.Return(decrypted, clearArray: true);
            }
        }
    }

    /// <summary>
    /// Refuses a raw length that the stored payload cannot produce, before a buffer of that length is allocated: a
    /// resealed header could otherwise make a block of a few bytes cost up to <see cref="BlockHeader.MaxPayloadLength"/>
    /// per decoder. <paramref name="plainLength"/> is the payload's length after decryption.
    /// </summary>
    private void CheckRawLength(in BlockHeader header, int plainLength, string path, long offset)
    {
        if ((header.Flags & BlockFlags.Compressed) != 0)
        {
            var most = _decompressor.MaxDecompressedLength(plainLength);
            if (header.RawLength > most)
            {
                throw new CorruptBlockException(path, offset,
                    $"raw length {header.RawLength} is more than {plainLength} compressed bytes can decode to ({most})");
            }
        }
        else if (header.RawLength != plainLength)
        {
            throw new CorruptBlockException(path, offset, $"raw length {header.RawLength} does not match the {plainLength}-byte payload");
        }
    }
}
