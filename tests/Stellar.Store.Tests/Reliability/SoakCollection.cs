using System.Collections.Concurrent;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>What the soak does to one collection; the model is the exact state the store must show.</summary>
internal interface ISoakCollection
{
    void Bind(StellarStore store);

    Task InsertAsync(Random random);

    Task UpdateAsync(Random random);

    Task UpsertAsync(Random random);

    Task DeleteAsync(Random random);

    Task BatchAsync(Random random);

    Task BulkImportAsync(Random random);

    Task BurstAsync(Random random);

    Task SnapshotAcrossWritesAsync(Random random);

    Task ReadersDuringWritesAsync(Random random);

    void Query(Random random);

    void Check(string context);

    /// <summary>From here on, writes may meet an injected fault: the model starts a list of the states a recovery may show.</summary>
    void BeginUncertain();

    /// <summary>
    /// One write (single or batch) that may meet the armed fault; returns whether it failed with
    /// <see cref="StoreFaultedException"/>. With <paramref name="promisedOnAck"/> an acknowledged write is promised
    /// (Fsync, WriteThrough), otherwise only what a later flush covers is (Buffered).
    /// </summary>
    Task<bool> UncertainWriteAsync(Random random, bool promisedOnAck);

    /// <summary>Everything acknowledged so far is promised now (a flush completed).</summary>
    void Promise();

    /// <summary>
    /// After the reopen: the store must show exactly one of the states from the last promised one to the last
    /// attempted one, which becomes the model. Returns how many writes past the promise it kept.
    /// </summary>
    int Resolve(string context);
}

/// <summary>
/// A collection under soak and its model. Every write's expected outcome (stored, or rejected with which exception)
/// comes from the model before the write is made; after it, the model is updated to what the store must show.
/// </summary>
internal sealed class SoakCollection<TKey, TValue> : ISoakCollection
    where TKey : notnull
{
    private readonly string _name;
    private readonly Func<TValue, TKey> _keyOf;
    private readonly Func<Random, TKey> _randomKey;
    private readonly Func<Random, TKey, TValue> _randomValue;
    private Collection<TKey, TValue>? _live;

    // The states a recovery may show while a fault is armed: [0] is the last promised one, the last is the state after
    // the last attempted write; null when no fault is armed.
    private List<Dictionary<TKey, TValue>>? _candidates;

    public SoakCollection(string name, Func<TValue, TKey> keyOf, Func<Random, TKey> randomKey, Func<Random, TKey, TValue> randomValue)
    {
        _name = name;
        _keyOf = keyOf;
        _randomKey = randomKey;
        _randomValue = randomValue;
    }

    public Dictionary<TKey, TValue> Model { get; } = new();

    private Collection<TKey, TValue> Live => _live ?? throw new InvalidOperationException("not bound to a store");

    public void Bind(StellarStore store)
    {
        _live = store.GetCollection(_name, _keyOf);
        Assert.Same(_live, store.GetCollection(_name, _keyOf));
    }

    public Task InsertAsync(Random random) => WriteAsync(WriteKind.Insert, random);

    public Task UpdateAsync(Random random) => WriteAsync(WriteKind.Update, random);

    public Task UpsertAsync(Random random) => WriteAsync(WriteKind.Upsert, random);

    public Task DeleteAsync(Random random) => WriteAsync(WriteKind.Delete, random);

    public async Task BatchAsync(Random random)
    {
        var (task, after, rejection) = SubmitBatch(random);
        if (rejection is null)
        {
            await task;
            Replace(after);
        }
        else
        {
            Assert.IsType(rejection, await Record.ExceptionAsync(() => task));
        }
    }

    public async Task BulkImportAsync(Random random)
    {
        // Over 4,096 records now and then, so the import spans several blocks; repeated keys end with their last value.
        var values = Enumerable.Range(0, random.Next(2) == 0 ? random.Next(1, 200) : random.Next(4_000, 9_000))
            .Select(_ => _randomValue(random, _randomKey(random)))
            .ToList();
        var reports = 0;
        await Live.BulkImportAsync(values, new Progress(() => reports++));
        Assert.True(reports > 0, "the import reported no progress");
        foreach (var value in values)
        {
            Model[_keyOf(value)] = value;
        }
    }

    public async Task BurstAsync(Random random)
    {
        // Concurrent writes to distinct keys: they share groups, so their outcomes cannot depend on one another.
        var keys = Enumerable.Range(0, random.Next(2, 24)).Select(_ => _randomKey(random)).Distinct().ToList();
        var writes = keys.Select(key => (Kind: (WriteKind)random.Next(4), Key: key, Value: _randomValue(random, key))).ToList();
        var tasks = writes.Select(w => Submit(w.Kind, w.Key, w.Value)).ToList();
        for (var i = 0; i < writes.Count; i++)
        {
            var (kind, key, value) = writes[i];
            var rejection = Apply(Model, kind, key, value);
            var error = await Record.ExceptionAsync(() => tasks[i]);
            if (rejection is null)
            {
                Assert.Null(error);
            }
            else
            {
                Assert.IsType(rejection, error);
            }
        }
    }

    public async Task SnapshotAcrossWritesAsync(Random random)
    {
        using var snapshot = Live.Snapshot();
        var pinned = new Dictionary<TKey, TValue>(Model);
        for (var n = random.Next(1, 8); n > 0; n--)
        {
            await WriteAsync((WriteKind)random.Next(4), random);
        }

        Assert.Equal(pinned.Count, snapshot.Count);
        AssertSame(pinned, snapshot.Query().ToList(), "a pinned snapshot after later writes");
        foreach (var (key, value) in pinned)
        {
            Assert.Equal(value, snapshot.Get(key));
        }
    }

    public async Task ReadersDuringWritesAsync(Random random)
    {
        // Sequential writes publish one version each, so every snapshot a concurrent reader takes must be exactly one
        // of the model's states between them: never half a write, never a mix.
        var states = new List<Dictionary<TKey, TValue>> { new(Model) };
        var seen = new ConcurrentQueue<List<TValue>>();
        using var stop = new CancellationTokenSource();
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
        {
            while (!stop.IsCancellationRequested && seen.Count < 200)
            {
                using var snapshot = Live.Snapshot();
                var content = snapshot.Query().ToList();
                Assert.Equal(snapshot.Count, content.Count);
                seen.Enqueue(content);
            }
        })).ToArray();

        for (var n = random.Next(3, 15); n > 0; n--)
        {
            await WriteAsync((WriteKind)random.Next(4), random);
            states.Add(new Dictionary<TKey, TValue>(Model));
        }

        await stop.CancelAsync();
        await Task.WhenAll(readers);
        foreach (var content in seen)
        {
            if (!states.Any(state => Same(state, content)))
            {
                throw new XunitException($"{_name}: a reader saw {content.Count} values that match none of the {states.Count} states the writes went through");
            }
        }
    }

    public void Query(Random random)
    {
        var threshold = random.Next(0, 100);
        bool Predicate(TValue value) => (uint)EqualityComparer<TKey>.Default.GetHashCode(_keyOf(value)) % 100 < threshold;
        AssertSame(Model.Where(entry => Predicate(entry.Value)).ToDictionary(), Live.Query(Predicate).ToList(), "a filtered query");
    }

    public void Check(string context)
    {
        Assert.True(Model.Count == Live.Count, $"{context}: {_name} counts {Live.Count}, the model {Model.Count}");
        foreach (var (key, value) in Model)
        {
            if (!Live.TryGet(key, out var stored) || !EqualityComparer<TValue>.Default.Equals(stored, value))
            {
                throw new XunitException($"{context}: {_name}[{key}] is {(stored is null ? "missing" : stored.ToString())}, the model has {value}");
            }
        }

        AssertSame(Model, Live.Query().ToList(), context);
    }

    public void BeginUncertain() => _candidates = [new Dictionary<TKey, TValue>(Model)];

    public async Task<bool> UncertainWriteAsync(Random random, bool promisedOnAck)
    {
        var candidates = _candidates ?? throw new InvalidOperationException("no fault is armed");
        Task task;
        Dictionary<TKey, TValue> after;
        Type? rejection;
        if (random.Next(3) == 0)
        {
            (task, after, rejection) = SubmitBatch(random);
        }
        else
        {
            var kind = (WriteKind)random.Next(4);
            var key = _randomKey(random);
            var value = _randomValue(random, key);
            after = new Dictionary<TKey, TValue>(Model);
            rejection = Apply(after, kind, key, value);
            task = Submit(kind, key, value);
        }

        var error = await Record.ExceptionAsync(() => task);
        if (error is StoreFaultedException)
        {
            // Its outcome is unknown: a recovery may show it (a rejected write changes nothing either way).
            if (rejection is null)
            {
                candidates.Add(after);
            }

            return true;
        }

        if (rejection is not null)
        {
            Assert.IsType(rejection, error);
            return false;
        }

        Assert.Null(error);
        Replace(after);
        if (promisedOnAck)
        {
            candidates.Clear();
        }

        candidates.Add(new Dictionary<TKey, TValue>(Model));
        return false;
    }

    public void Promise() => _candidates = [new Dictionary<TKey, TValue>(Model)];

    public int Resolve(string context)
    {
        var candidates = _candidates ?? throw new InvalidOperationException("no fault is armed");
        _candidates = null;
        var content = Live.Query().ToList();
        var match = candidates.FindLastIndex(state => Same(state, content));
        if (match < 0)
        {
            throw new XunitException($"{context}: after the fault and the reopen {_name} holds {content.Count} values that match none of the {candidates.Count} states from the last promised write to the last attempted one");
        }

        Replace(candidates[match]);
        return match;
    }

    private static Type? Apply(Dictionary<TKey, TValue> state, WriteKind kind, TKey key, TValue value)
    {
        var exists = state.ContainsKey(key);
        switch (kind)
        {
            case WriteKind.Insert when exists:
                return typeof(DuplicateKeyException);
            case WriteKind.Update when !exists:
                return typeof(KeyNotFoundException);
            case WriteKind.Delete:
                state.Remove(key);
                return null;
            default:
                state[key] = value;
                return null;
        }
    }

    private async Task WriteAsync(WriteKind kind, Random random)
    {
        var key = _randomKey(random);
        var value = _randomValue(random, key);
        var existed = Model.ContainsKey(key);
        var rejection = Apply(Model, kind, key, value);
        var task = Submit(kind, key, value);
        if (rejection is null)
        {
            await task;
            if (kind == WriteKind.Delete)
            {
                Assert.Equal(existed, await (Task<bool>)task);
            }
        }
        else
        {
            Assert.IsType(rejection, await Record.ExceptionAsync(() => task));
        }
    }

    /// <summary>
    /// Submits a random batch, checked in order against the state the earlier writes leave: the first rejection
    /// rejects all. Returns the write, the model's state after it, and the rejection it must meet, if any.
    /// </summary>
    private (Task Task, Dictionary<TKey, TValue> After, Type? Rejection) SubmitBatch(Random random)
    {
        var after = new Dictionary<TKey, TValue>(Model);
        var writes = new List<(WriteKind Kind, TKey Key, TValue Value)>();
        Type? rejection = null;
        for (var n = random.Next(1, 12); n > 0; n--)
        {
            var kind = (WriteKind)random.Next(4);
            var key = _randomKey(random);
            var value = _randomValue(random, key);
            writes.Add((kind, key, value));
            rejection ??= Apply(after, kind, key, value);
        }

        var task = Live.WriteAsync(batch =>
        {
            foreach (var (kind, key, value) in writes)
            {
                _ = kind switch
                {
                    WriteKind.Insert => batch.Insert(value),
                    WriteKind.Update => batch.Update(value),
                    WriteKind.Upsert => batch.Upsert(value),
                    _ => batch.Delete(key),
                };
            }
        });
        return (task, after, rejection);
    }

    private Task Submit(WriteKind kind, TKey key, TValue value) => kind switch
    {
        WriteKind.Insert => Live.InsertAsync(value),
        WriteKind.Update => Live.UpdateAsync(value),
        WriteKind.Upsert => Live.UpsertAsync(value),
        _ => Live.DeleteAsync(key),
    };

    private void Replace(Dictionary<TKey, TValue> state)
    {
        Model.Clear();
        foreach (var (key, value) in state)
        {
            Model[key] = value;
        }
    }

    private bool Same(Dictionary<TKey, TValue> expected, List<TValue> actual) =>
        expected.Count == actual.Count
        && actual.All(value => expected.TryGetValue(_keyOf(value), out var model) && EqualityComparer<TValue>.Default.Equals(model, value));

    private void AssertSame(Dictionary<TKey, TValue> expected, List<TValue> actual, string context)
    {
        if (!Same(expected, actual))
        {
            throw new XunitException($"{context}: {_name} holds {actual.Count} values that differ from the model's {expected.Count}");
        }
    }

    private enum WriteKind
    {
        Insert,
        Update,
        Upsert,
        Delete,
    }

    private sealed class Progress(Action report) : IProgress<BulkImportProgress>
    {
        public void Report(BulkImportProgress value) => report();
    }
}
