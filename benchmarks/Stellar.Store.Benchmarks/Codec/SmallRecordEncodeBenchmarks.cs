using System.Buffers;
using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;

namespace Stellar.Store.Benchmarks.Codec;

/// <summary>
/// The plain encode path of <see cref="EncodeBenchmarks"/> (serialize + record framing + pack + checksum, no I/O) on
/// the small records bulk import writes (<see cref="Data.SmallRange"/>, the records of <c>BulkImportBenchmarks</c>),
/// packed into blocks of up to 4,096 records as bulk import packs them: the rate bulk import is measured against
/// (goal: bulk import ≥ 80% of this row's all-core rate). <c>RecordBytes</c> is those records' average encoded length.
/// </summary>
[MemoryDiagnoser]
[ReadJob]
[BenchmarkCategory("Encode", Pairing.Cpu)]
public class SmallRecordEncodeBenchmarks
{
    private const int Records = 16_384;
    private const int BlockRecords = 4096;

    private SmallRecord[] _records = [];
    private BlockCodec _plain = null!;
    private long _sequence;

    /// <summary>Degree of parallelism: 1, 2 and the processor count.</summary>
    [ParamsSource(nameof(CoreCounts))]
    public int Cores { get; set; }

    /// <summary>The average encoded length of the records (framing included); one value, shown for the report.</summary>
    [ParamsSource(nameof(AverageRecordBytes))]
    public int RecordBytes { get; set; }

    public static IEnumerable<int> CoreCounts => EncodeBenchmarks.CoreCounts;

    public static IEnumerable<int> AverageRecordBytes =>
    [
        (int)Math.Round(Data.SmallRange(Records).Average(r =>
        {
            var write = Create(r);
            write.Release();
            return write.Length;
        })),
    ];

    [GlobalSetup]
    public void GlobalSetup()
    {
        _records = Data.SmallRange(Scale.Ops(Records)).ToArray();
        _plain = new BlockCodec(null, new Lz4Compressor(), null);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, RecordBytes);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Records)]
    public long Plain()
    {
        long total = 0;
        var blocks = (_records.Length + BlockRecords - 1) / BlockRecords;
        Parallel.For(0, blocks, new ParallelOptions { MaxDegreeOfParallelism = Cores }, b =>
        {
            var start = b * BlockRecords;
            var writes = new SingleWrite<int, SmallRecord>[Math.Min(BlockRecords, _records.Length - start)];
            var rawLength = 0;
            for (var i = 0; i < writes.Length; i++)
            {
                writes[i] = Create(_records[start + i]);
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

            var sequence = (ulong)Interlocked.Increment(ref _sequence);
            var block = _plain.Encode(1, 1, [], sequence, (uint)writes.Length, BlockFlags.None, raw.AsSpan(0, rawLength), out var length);
            ArrayPool<byte>.Shared.Return(raw);
            ArrayPool<byte>.Shared.Return(block);
            Interlocked.Add(ref total, length);
        });

        return total;
    }

    private static SingleWrite<int, SmallRecord> Create(SmallRecord record) =>
        SingleWrite<int, SmallRecord>.Create(RecordSerializer.Default, WriteKind.Upsert, record.Id, record, Collection<int, SmallRecord>.MaxKeyBytes, int.MaxValue);
}
