namespace Stellar.Store.TestHost.Workload;

/// <summary>
/// The seeded stream of units across collections of one task: step s writes the task's key for s to two or three of
/// <see cref="Collections"/> (an upsert, now and then a delete, now and then a value over the large-value threshold), all
/// in one <c>StellarStore.WriteAsync</c>. The same (seed, task) always yields the same steps, so a parent process can
/// replay what a killed child attempted and tell a unit that is there whole from one that is there in part.
/// </summary>
public sealed class UnitStream
{
    /// <summary>The collections the units span.</summary>
    public static readonly string[] Collections = ["units-a", "units-b", "units-c"];

    /// <summary>Keys of task t are t * KeyStride + [0, KeysPerTask).</summary>
    public const int KeyStride = 1_000_000;

    /// <summary>Keys per task: few, so that later steps overwrite and delete what earlier ones wrote.</summary>
    public const int KeysPerTask = 20;

    private readonly Random _random;
    private int _step;

    public UnitStream(int seed, int task)
    {
        _random = new Random(unchecked((seed * 7907) + task + 17));
        Task = task;
    }

    public int Task { get; }

    /// <summary>The next step: each write names a collection index, and the item to upsert or null to delete the key.</summary>
    public IReadOnlyList<(int Collection, int Key, WorkloadItem? Item)> Next()
    {
        var key = (Task * KeyStride) + (_step % KeysPerTask);
        var skip = _random.Next(4);
        var writes = new List<(int, int, WorkloadItem?)>();
        for (var c = 0; c < Collections.Length; c++)
        {
            if (c == skip)
            {
                continue;
            }

            var roll = _random.Next(100);
            var length = roll < 3 ? _random.Next(WorkloadStream.LargePayloadMin, 30_000) : _random.Next(0, 300);
            writes.Add((c, key, roll is >= 3 and < 15 ? null : new WorkloadItem(key, Task, _step, new string((char)('a' + (_step % 26)), length))));
        }

        _step++;
        return writes;
    }

    /// <summary>Applies a step to a model of the collections.</summary>
    public static void Apply(Dictionary<(int Collection, int Key), WorkloadItem> state, IReadOnlyList<(int Collection, int Key, WorkloadItem? Item)> step)
    {
        ArgumentNullException.ThrowIfNull(state);
        ArgumentNullException.ThrowIfNull(step);
        foreach (var (collection, key, item) in step)
        {
            if (item is null)
            {
                state.Remove((collection, key));
            }
            else
            {
                state[(collection, key)] = item;
            }
        }
    }
}
