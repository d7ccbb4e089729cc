using System.Buffers;
using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;

namespace Stellar.Store.Benchmarks.Codec;

/// <summary>
/// The encode path of a commit, as <c>CollectionEngine</c> runs it, without I/O. Records (about 100 B, or
/// 2 KB of text) are serialized into records (MessagePack + record framing), packed into blocks of up to 64 KiB raw,
/// and each block is compressed and/or encrypted and checksummed by <see cref="BlockCodec"/>; blocks are encoded in
/// parallel on 1, 2 or all cores. The time is per record; MB/s counts raw record bytes.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("Encode", Pairing.Cpu)]
public class EncodeBenchmarks : IDisposable
{
    private const int Records = 4096;
    private const int TargetBlockBytes = 64 * 1024;

    private LargeRecord[] _records = [];
    private (int Start, int Count)[] _blocks = [];
    private BlockCodec _plain = null!;
    private BlockCodec _lz4 = null!;
    private BlockCodec _aes = null!;
    private BlockCodec _both = null!;
    private AesGcmBlockCipher? _cipher;
    private long _sequence;

    // Every shard of the current format has a random salt in its header, bound into its encryption subkey.
    private static readonly byte[] ShardSalt = System.Security.Cryptography.RandomNumberGenerator.GetBytes(16);

    /// <summary>Degree of parallelism: 1, 2 and the processor count (the same as 2 on a 2-core machine).</summary>
    [ParamsSource(nameof(CoreCounts))]
    public int Cores { get; set; }

    /// <summary>About how many bytes each record serializes to.</summary>
    [Params(100, 2048)]
    public int RecordBytes { get; set; }

    public static IEnumerable<int> CoreCounts => new[] { 1, 2, Environment.ProcessorCount }.Distinct();

    [GlobalSetup]
    public void GlobalSetup()
    {
        const int FieldBytes = 40;
        _records = Enumerable.Range(1, Scale.Ops(Records)).Select(i => Data.Large(i, Math.Max(8, RecordBytes - FieldBytes))).ToArray();
        var lengths = _records.Select(r =>
        {
            var write = SingleWrite<int, LargeRecord>.Create(RecordSerializer.Default, WriteKind.Upsert, r.Id, r, Collection<int, LargeRecord>.MaxKeyBytes, int.MaxValue);
            write.Release();
            return write.Length;
        }).ToArray();

        var blocks = new List<(int, int)>();
        for (int start = 0, bytes = 0, i = 0; i <= lengths.Length; i++)
        {
            if (i == lengths.Length || (bytes + lengths[i] > TargetBlockBytes && i > start))
            {
                blocks.Add((start, i - start));
                start = i;
                bytes = 0;
            }

            if (i < lengths.Length)
            {
                bytes += lengths[i];
            }
        }

        _blocks = blocks.ToArray();
        _cipher = new AesGcmBlockCipher(Enumerable.Range(1, 32).Select(i => (byte)i).ToArray());
        var decompressor = new Lz4Compressor();
        _plain = new BlockCodec(null, decompressor, null);
        _lz4 = new BlockCodec(new Lz4Compressor(), decompressor, null);
        _aes = new BlockCodec(null, decompressor, _cipher);
        _both = new BlockCodec(new Lz4Compressor(), decompressor, _cipher);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, lengths.Average());
    }

    [GlobalCleanup]
    public void Dispose()
    {
        _cipher?.Dispose();
        _cipher = null;
        GC.SuppressFinalize(this);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Records)]
    public long Plain() => Encode(_plain);

    [Benchmark(OperationsPerInvoke = Records)]
    public long Lz4() => Encode(_lz4);

    [Benchmark(OperationsPerInvoke = Records)]
    public long AesGcm() => Encode(_aes);

    [Benchmark(OperationsPerInvoke = Records)]
    public long Lz4_AesGcm() => Encode(_both);

    private long Encode(BlockCodec codec)
    {
        long total = 0;
        Parallel.For(0, _blocks.Length, new ParallelOptions { MaxDegreeOfParallelism = Cores }, b =>
        {
            var (start, count) = _blocks[b];
            var writes = new SingleWrite<int, LargeRecord>[count];
            var rawLength = 0;
            for (var i = 0; i < count; i++)
            {
                var record = _records[start + i];
                writes[i] = SingleWrite<int, LargeRecord>.Create(RecordSerializer.Default, WriteKind.Upsert, record.Id, record, Collection<int, LargeRecord>.MaxKeyBytes, int.MaxValue);
                rawLength += writes[i].Length;
            }

            var raw = ArrayPool<byte>.Shared.Rent(rawLength);
            var position = 0;
            foreach (var write in writes)
            {
                write.Record.AsSpan(0, write.Length).CopyTo(raw.AsSpan(position));
                position += write.Length;
                write.Release();
            }

            // A fresh sequence per block: a (shard, sequence) nonce is never used twice, in benchmarks too.
            var sequence = (ulong)Interlocked.Increment(ref _sequence);
            var block = codec.Encode(1, 1, ShardSalt, sequence, (uint)count, BlockFlags.None, raw.AsSpan(0, rawLength), out var length);
            ArrayPool<byte>.Shared.Return(raw);
            ArrayPool<byte>.Shared.Return(block);
            Interlocked.Add(ref total, length);
        });

        return total;
    }
}
