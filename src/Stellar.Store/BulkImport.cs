using System.Diagnostics;
using Stellar.Store.Engine;
using Stellar.Store.Format;

namespace Stellar.Store;

/// <summary>
/// One run of <see cref="Collection{TKey,TValue}.BulkImportAsync(IAsyncEnumerable{TValue}, IProgress{BulkImportProgress}?, CancellationToken)"/>:
/// serializes the source in parallel chunks, cuts them into blocks by bytes, and submits the blocks in source order.
/// </summary>
/// <remarks>
/// Not thread-safe: one run on one caller's flow. It owns the writes it encodes until it submits them; the submit
/// path returns the buffers of submitted writes, and this run those of writes it encoded but never submitted.
/// </remarks>
internal sealed class BulkImport<TKey, TValue>
    where TKey : notnull
{
    /// <summary>The most records per block.</summary>
    private const int ImportChunkRecords = 4096;

    /// <summary>
    /// A block is closed once its records reach this many bytes (or <see cref="ImportChunkRecords"/>), so it holds at
    /// most this plus one record, far under <see cref="Collection{TKey,TValue}.MaxBatchBytes"/> whatever the records' size.
    /// </summary>
    private const int ImportChunkBytes = 1024 * 1024;

    /// <summary>Values gathered for the first import chunks, before their encoded size is known.</summary>
    private const int FirstImportChunkRecords = 64;

    private readonly Func<TValue, SingleWrite<TKey, TValue>> _encode;
    private readonly Func<BatchWrite<TKey, TValue>, CancellationToken, Task> _submit;
    private readonly int _parallelism;

    /// <param name="encode">Serializes one value as an upsert (throws on a bad record).</param>
    /// <param name="submit">Queues a write to the collection's writer and returns its buffers after its outcome.</param>
    /// <param name="parallelism">Chunks serialized at once.</param>
    public BulkImport(Func<TValue, SingleWrite<TKey, TValue>> encode, Func<BatchWrite<TKey, TValue>, CancellationToken, Task> submit, int parallelism)
    {
        _encode = encode;
        _submit = submit;
        _parallelism = parallelism;
    }

    /// <summary>
    /// Imports <paramref name="source"/>; completes when every submitted block has its outcome. On a failure every block
    /// submitted before it has run to its outcome too, and the writer rejects every block queued behind a rejected one
    /// (<see cref="ImportChain"/>), so what is stored is a prefix of whole blocks.
    /// </summary>
    public async Task RunAsync(IAsyncEnumerable<TValue> source, IProgress<BulkImportProgress>? progress, CancellationToken cancellationToken)
    {
        // Chunks are serialized on several cores at once (encoding), cut into blocks by bytes (pending), then queued
        // to the writer strictly in source order (inFlight), so the last value of a key wins and what is stored after
        // a failure is a prefix. A chunk gathers about a block's worth of values, judged from the chunks encoded so far.
        var encoding = new Queue<Task<List<List<SingleWrite<TKey, TValue>>>>>();
        var pending = new Queue<List<SingleWrite<TKey, TValue>>>();
        var inFlight = new Queue<(Task Task, int Records, long Bytes)>();
        var chain = new ImportChain();
        var maxInFlight = Math.Max(2, _parallelism * 2);
        var chunkRecords = FirstImportChunkRecords;
        long records = 0, bytes = 0, encodedRecords = 0, encodedBytes = 0;

        async Task DrainOneAsync()
        {
            var (task, count, size) = inFlight.Dequeue();
            await task.ConfigureAwait(false);
            records += count;
            bytes += size;
            progress?.Report(new BulkImportProgress(records, bytes));
        }

        async Task SubmitOldestAsync()
        {
            foreach (var block in await encoding.Dequeue().ConfigureAwait(false))
            {
                pending.Enqueue(block);
                encodedRecords += block.Count;
                encodedBytes += block.Sum(w => (long)w.Length);
            }

            chunkRecords = (int)Math.Clamp(ImportChunkBytes * encodedRecords / Math.Max(1, encodedBytes), 1, ImportChunkRecords);
            while (pending.Count > 0)
            {
                // Cancellation is honoured between blocks only: a block cancelled while it waited for room in the
                // writer's queue would never reach the import's chain, and the block after it, admitted, would leave
                // a hole in the prefix that is stored.
                cancellationToken.ThrowIfCancellationRequested();
                var batch = new BatchWrite<TKey, TValue>(pending.Dequeue(), atomic: false, chain);
                inFlight.Enqueue((_submit(batch, CancellationToken.None), batch.Writes.Count, batch.Bytes));
                while (inFlight.Count >= maxInFlight)
                {
                    await DrainOneAsync().ConfigureAwait(false);
                }
            }
        }

        var chunk = new List<TValue>(chunkRecords);
        try
        {
            await foreach (var value in source.WithCancellation(cancellationToken).ConfigureAwait(false))
            {
                ArgumentNullException.ThrowIfNull(value, nameof(source));
                chunk.Add(value);
                if (chunk.Count >= chunkRecords)
                {
                    var values = chunk;
                    encoding.Enqueue(Task.Run(() => EncodeChunk(values), CancellationToken.None));
                    chunk = new List<TValue>(chunkRecords);
                    if (encoding.Count >= _parallelism)
                    {
                        await SubmitOldestAsync().ConfigureAwait(false);
                    }
                }
            }

            if (chunk.Count > 0)
            {
                var values = chunk;
                encoding.Enqueue(Task.Run(() => EncodeChunk(values), CancellationToken.None));
            }

            while (encoding.Count > 0)
            {
                await SubmitOldestAsync().ConfigureAwait(false);
            }

            while (inFlight.Count > 0)
            {
                await DrainOneAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            // Blocks encoded but never queued give their buffers back.
            while (pending.Count > 0)
            {
                pending.Dequeue().ForEach(w => w.Release());
            }

            while (encoding.Count > 0)
            {
                try
                {
                    (await encoding.Dequeue().ConfigureAwait(false)).ForEach(block => block.ForEach(w => w.Release()));
                }
                catch (Exception)
                {
                    // Only reached when the import already failed (a bad record, a cancellation, a faulted store):
                    // that first failure is the one the caller sees, not a later chunk's bad record.
                }
            }

            // Whatever was queued runs to its outcome; wait for it so no import write outlives the call.
            while (inFlight.Count > 0)
            {
                try
                {
                    await DrainOneAsync().ConfigureAwait(false);
                }
                catch (Exception)
                {
                    // Only reached when the import already failed: that first failure is the one the caller sees, not
                    // the rejection of a block queued behind a rejected one, nor a queued block's outcome after a cancellation.
                }
            }
        }
    }

    /// <summary>
    /// Serializes one import chunk (on a pool thread) into blocks of at most <see cref="ImportChunkRecords"/> records,
    /// each closed once it reaches <see cref="ImportChunkBytes"/>; on a bad record, releases what it encoded and throws.
    /// </summary>
    private List<List<SingleWrite<TKey, TValue>>> EncodeChunk(List<TValue> values)
    {
        var blocks = new List<List<SingleWrite<TKey, TValue>>>();
        var block = new List<SingleWrite<TKey, TValue>>();
        long blockBytes = 0;
        try
        {
            foreach (var value in values)
            {
                var write = _encode(value);
                block.Add(write);
                blockBytes += write.Length;
                if (blockBytes >= ImportChunkBytes || block.Count == ImportChunkRecords)
                {
                    blocks.Add(block);
                    block = new List<SingleWrite<TKey, TValue>>();
                    blockBytes = 0;
                }
            }

            if (block.Count > 0)
            {
                blocks.Add(block);
            }

            Debug.Assert(blocks.TrueForAll(b => b.Sum(w => (long)w.Length) <= ImportChunkBytes + Collection<TKey, TValue>.MaxKeyBytes + Collection<TKey, TValue>.MaxValueBytes + RecordFormat.PutOverhead));
            return blocks;
        }
        catch
        {
            block.ForEach(w => w.Release());
            blocks.ForEach(b => b.ForEach(w => w.Release()));
            throw;
        }
    }
}
