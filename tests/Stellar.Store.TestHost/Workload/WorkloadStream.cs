using System.Text;

namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The seeded stream of writes of one task. Each task owns its own key range and runs its steps one after the
/// other (awaiting each), so the order of writes to a key is known exactly: after a crash, a task's keys must
/// hold the state after its last acknowledged step, or after the one step it had started since. The same
/// (seed, task) always yields the same steps, so a parent process can rebuild what a killed child attempted.
/// </summary>
/// <remarks>Every step is valid against the state the earlier steps leave (inserts of absent keys, updates and
/// deletes of present ones), so a rejection is itself a failure.</remarks>
public sealed class WorkloadStream
{
    /// <summary>The collection the workload writes.</summary>
    public const string CollectionName = "items";

    /// <summary>Keys of task t are t * KeyStride + [0, KeyCount).</summary>
    public const int KeyStride = 1_000_000;

    private readonly Random _random;
    private readonly Dictionary<int, WorkloadItem> _state = new();
    private int _step;

    /// <summary>The stream of <paramref name="task"/> under <paramref name="seed"/>, over <paramref name="keyCount"/> keys.</summary>
    public WorkloadStream(int seed, int task, int keyCount)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(task);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(keyCount);
        _random = new Random(unchecked((seed * 7919) + task));
        Task = task;
        KeyCount = keyCount;
    }

    /// <summary>The task this stream belongs to.</summary>
    public int Task { get; }

    /// <summary>How many keys the task owns.</summary>
    public int KeyCount { get; }

    /// <summary>The shortest large payload: over the default <c>LargeValueThreshold</c> of 16 KiB.</summary>
    public const int LargePayloadMin = 17_000;

    // Five in a thousand values: a few per kill or fault run, without making the runs much longer.
    private const int LargeOnePerThousand = 5;

    /// <summary>The task's keys as the steps generated so far leave them.</summary>
    public IReadOnlyDictionary<int, WorkloadItem> State => _state;

    /// <summary>Whether <paramref name="key"/> belongs to this task.</summary>
    public bool Owns(int key) => key >= Task * KeyStride && key < (Task * KeyStride) + KeyCount;

    /// <summary>Generates the next step and applies it to <see cref="State"/>.</summary>
    public WorkloadOp Next()
    {
        WorkloadOp op;
        if (_random.Next(100) < 20)
        {
            // Mostly small batches; now and then one larger than a block (64 KiB), so it is sealed alone.
            var count = _random.Next(100) < 10 ? _random.Next(40, 120) : _random.Next(2, 12);
            var batchState = new Dictionary<int, WorkloadItem>(_state);
            var writes = new List<WorkloadWrite>(count);
            for (var i = 0; i < count; i++)
            {
                var write = NextWrite(batchState, count > 20 ? 400 : null);
                Apply(batchState, write);
                writes.Add(write);
            }

            op = new WorkloadOp(Task, _step, Atomic: true, writes);
        }
        else
        {
            op = new WorkloadOp(Task, _step, Atomic: false, [NextWrite(_state, null)]);
        }

        foreach (var write in op.Writes)
        {
            Apply(_state, write);
        }

        _step++;
        return op;
    }

    /// <summary>Applies one write to a model of the collection.</summary>
    public static void Apply(IDictionary<int, WorkloadItem> state, WorkloadWrite write)
    {
        ArgumentNullException.ThrowIfNull(state);
        ArgumentNullException.ThrowIfNull(write);
        if (write.Kind == WorkloadWriteKind.Delete)
        {
            state.Remove(write.Key);
        }
        else
        {
            state[write.Key] = write.Value!;
        }
    }

    /// <summary>Runs <paramref name="op"/> through the public API; completes when the store acknowledged it.</summary>
    public static async Task ExecuteAsync(Collection<int, WorkloadItem> items, WorkloadOp op)
    {
        ArgumentNullException.ThrowIfNull(items);
        ArgumentNullException.ThrowIfNull(op);
        if (op.Atomic)
        {
            await items.WriteAsync(batch =>
            {
                foreach (var write in op.Writes)
                {
                    _ = write.Kind switch
                    {
                        WorkloadWriteKind.Insert => batch.Insert(write.Value!),
                        WorkloadWriteKind.Update => batch.Update(write.Value!),
                        WorkloadWriteKind.Upsert => batch.Upsert(write.Value!),
                        _ => batch.Delete(write.Key),
                    };
                }
            }).ConfigureAwait(false);
            return;
        }

        var single = op.Writes[0];
        switch (single.Kind)
        {
            case WorkloadWriteKind.Insert:
                await items.InsertAsync(single.Value!).ConfigureAwait(false);
                break;
            case WorkloadWriteKind.Update:
                await items.UpdateAsync(single.Value!).ConfigureAwait(false);
                break;
            case WorkloadWriteKind.Upsert:
                await items.UpsertAsync(single.Value!).ConfigureAwait(false);
                break;
            default:
                if (!await items.DeleteAsync(single.Key).ConfigureAwait(false))
                {
                    throw new InvalidOperationException($"Task {op.Task} step {op.Step}: deleting key {single.Key}, which the task had written, found nothing.");
                }

                break;
        }
    }

    private WorkloadWrite NextWrite(Dictionary<int, WorkloadItem> state, int? maxPayload)
    {
        var key = (Task * KeyStride) + _random.Next(KeyCount);
        var roll = _random.Next(100);
        var kind = state.ContainsKey(key)
            ? roll switch { < 35 => WorkloadWriteKind.Update, < 70 => WorkloadWriteKind.Upsert, _ => WorkloadWriteKind.Delete }
            : roll < 60 ? WorkloadWriteKind.Insert : WorkloadWriteKind.Upsert;
        return kind == WorkloadWriteKind.Delete
            ? new WorkloadWrite(kind, key, null)
            : new WorkloadWrite(kind, key, new WorkloadItem(key, Task, _step, Payload(maxPayload)));
    }

    private string Payload(int? max)
    {
        // Mostly small values; some of several KiB, so groups span blocks and the 64 KiB shards roll often; now and
        // then one over LargeValueThreshold (16 KiB by default), which the store keeps on disk and reads back from
        // its shard, so kills and injected faults meet large values too.
        var roll = _random.Next(1_000);
        var length = roll switch
        {
            < LargeOnePerThousand => _random.Next(LargePayloadMin, 40_000),
            < 100 => _random.Next(1_000, 6_000),
            _ => _random.Next(0, 200),
        };
        length = Math.Min(length, max ?? length);
        var text = new StringBuilder(length);
        if (_random.Next(2) == 0)
        {
            // Repetitive: LZ4 shrinks it.
            var unit = (char)('a' + _random.Next(26));
            text.Append(unit, length);
        }
        else
        {
            // Random letters: LZ4 gives up and the block is stored raw.
            for (var i = 0; i < length; i++)
            {
                text.Append((char)('!' + _random.Next(90)));
            }
        }

        return text.ToString();
    }
}
