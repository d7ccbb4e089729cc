using BenchmarkDotNet.Attributes;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Codecs;
using Stellar.Store.Engine;
using Stellar.Store.Format;
using Stellar.Store.Shards;
using Stellar.Store.Storage;

namespace Stellar.Store.Benchmarks.Engine;

/// <summary>
/// Blocks appended per second to a shard chain on real files, one block per group (each block made as
/// durable as the mode promises before the next), in each durability mode, against a plain <see cref="FileStream"/>
/// doing the same (write per block; write and fsync per block). One real encoded block of small records is appended
/// again and again: this measures the append path, not encoding. The time is per block. Buffered promises nothing
/// per block, so its row times the flush that makes the blocks durable at the end, and stands alone.
/// </summary>
[MemoryDiagnoser]
[WriteJob(5)]
[BenchmarkCategory("BlockAppend")]
public class BlockAppendBenchmarks : StoreBenchmark
{
    private const int Blocks = 500;

    private byte[] _block = [];
    private ShardChain _chain = null!;
    private FileStream _file = null!;

    /// <summary>Raw bytes of records in the block.</summary>
    [Params(4096, 65536)]
    public int BlockBytes { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        using var raw = new MemoryStream();
        uint count = 0;
        foreach (var record in Data.SmallRange(int.MaxValue))
        {
            var write = SingleWrite<int, SmallRecord>.Create(RecordSerializer.Default, WriteKind.Upsert, record.Id, record, Collection<int, SmallRecord>.MaxKeyBytes, int.MaxValue);
            var full = raw.Length + write.Length > BlockBytes;
            if (!full)
            {
                raw.Write(write.Record, 0, write.Length);
                count++;
            }

            write.Release();
            if (full)
            {
                break;
            }
        }

        var codec = new BlockCodec(null, new Codecs.Lz4Compressor(), null);
        var block = codec.Encode(1, 1, default, 1, count, BlockFlags.None, raw.GetBuffer().AsSpan(0, (int)raw.Length), out var length);
        _block = block.AsSpan(0, length).ToArray();
        System.Buffers.ArrayPool<byte>.Shared.Return(block);
        SideMetrics.Record(this, SideMetrics.AnyMethod, SideMetrics.BytesPerOp, _block.Length);
    }

    [IterationSetup(Target = nameof(FileStream_Write))]
    public void SetupFileWrite() => _file = OpenFile(nameof(FileStream_Write));

    [IterationSetup(Target = nameof(FileStream_Fsync))]
    public void SetupFileFsync() => _file = OpenFile(nameof(FileStream_Fsync));

    [IterationSetup(Target = nameof(Stellar_Buffered_FlushAtEnd))]
    public void SetupBuffered() => SetupChain(nameof(Stellar_Buffered_FlushAtEnd), Durability.Buffered);

    [IterationSetup(Target = nameof(Stellar_WriteThrough))]
    public void SetupWriteThrough() => SetupChain(nameof(Stellar_WriteThrough), Durability.WriteThrough);

    [IterationSetup(Target = nameof(Stellar_Fsync))]
    public void SetupFsync() => SetupChain(nameof(Stellar_Fsync), Durability.Fsync);

    [IterationCleanup]
    public void IterationCleanup() => CloseMeasureAndDelete();

    [GlobalCleanup]
    public void GlobalCleanup() => DeleteRoot();

    [Benchmark(Baseline = true, OperationsPerInvoke = Blocks)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void FileStream_Write()
    {
        for (var i = 0; i < Scale.Ops(Blocks); i++)
        {
            _file.Write(_block);
            _file.Flush(flushToDisk: false);
        }
    }

    [Benchmark(OperationsPerInvoke = Blocks)]
    [BenchmarkCategory(Pairing.FlushAtEnd)]
    public void Stellar_Buffered_FlushAtEnd()
    {
        AppendBlocks();
        _chain.Flush();
    }

    [Benchmark(OperationsPerInvoke = Blocks)]
    [BenchmarkCategory(Pairing.OsWrite)]
    public void Stellar_WriteThrough() => AppendBlocks();

    [Benchmark(Baseline = true, OperationsPerInvoke = Blocks)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void FileStream_Fsync()
    {
        for (var i = 0; i < Scale.Ops(Blocks); i++)
        {
            _file.Write(_block);
            _file.Flush(flushToDisk: true);
        }
    }

    [Benchmark(OperationsPerInvoke = Blocks)]
    [BenchmarkCategory(Pairing.Fsync)]
    public void Stellar_Fsync() => AppendBlocks();

    private void SetupChain(string method, Durability durability)
    {
        var storage = new FileStorage(Fresh(method));
        var manifest = ManifestStore.Open(storage, storage.Location, new StoreOptions(), out _);
        var chain = new ShardChain(storage, manifest, manifest.GetOrAddCollection("blocks", "", "").Id, 1L << 30, durability);
        _chain = chain;
        OnClose(() =>
        {
            chain.Flush();
            chain.Dispose();
        });
    }

    private void AppendBlocks()
    {
        for (var i = 0; i < Scale.Ops(Blocks); i++)
        {
            var (shardId, sequence) = _chain.Reserve(_block.Length);
            _chain.Append(shardId, sequence, _block);
            _chain.EndGroup();
        }
    }
}
