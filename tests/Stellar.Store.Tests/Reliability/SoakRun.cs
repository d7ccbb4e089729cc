using System.Globalization;
using Stellar.Store.Storage;
using Stellar.Store.Tests.Api;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>Where a soak keeps its store.</summary>
public enum SoakStorage
{
    /// <summary>A real directory: a reopen is a dispose and an open.</summary>
    Files,

    /// <summary><see cref="MemoryStorage"/>: a reopen may also be a crash of the process or the machine.</summary>
    Memory,
}

/// <summary>
/// One seeded soak: a random mix of every operation on two collections, each checked against its model right
/// after it runs. The operations are the entries of <see cref="Operations"/>; a new one is one more entry there.
/// </summary>
internal sealed class SoakRun
{
    private static readonly byte[] Key = Enumerable.Range(0, 32).Select(i => (byte)(i + 100)).ToArray();

    private readonly int _seed;
    private readonly SoakStorage _kind;
    private readonly string _path;
    private readonly Random _random;
    private readonly StoreOptions _options;
    private readonly MemoryStorage _memory = new();
    private readonly ISoakCollection[] _collections;
    private readonly Dictionary<string, int> _counts = new(StringComparer.Ordinal);
    private string _context = string.Empty;
    private StellarStore? _store;

    // Every store opens through it; a fault is armed on it only inside the "fault" operation.
    private FaultInjectingStorage? _faults;
    private int _faultsBeforeEffect;
    private int _faultsAfterEffect;
    private int _keptBeyondPromise;

    // The boundary of the simulated process that owns the open store: a crash goes through it, so that a background
    // compaction of the dead process cannot write on after the crash.
    private CrashFence? _fence;

    public SoakRun(int seed, SoakStorage kind, string path)
    {
        _seed = seed;
        _kind = kind;
        _path = path;
        _random = new Random(seed);
        _options = new StoreOptions
        {
            Durability = (Durability)(seed % 3), // three seeds in a row cover every mode
            Compression = _random.Next(2) == 0 ? Compression.None : Compression.Lz4,
            EncryptionKey = _random.Next(2) == 0 ? null : Key,
            MaxShardBytes = 64 * 1024,
            MaxQueuedWrites = _random.Next(3) == 0 ? 4 : 65_536,
        };
        _collections =
        [
            new SoakCollection<int, Player>("players", p => p.Id, r => r.Next(300),
                (r, id) => new Player(id, new string((char)('a' + r.Next(26)), r.Next(0, 40)), r.Next(100), r.NextInt64(1_000_000))),
            new SoakCollection<string, SoakItem>("items", i => i.Id, r => string.Create(CultureInfo.InvariantCulture, $"item-{r.Next(150)}"),
                (r, id) => new SoakItem(id, r.NextInt64(), Payload(r))),
        ];
    }

    /// <summary>
    /// Operations by name and weight. Besides the explicit compaction, automatic compaction runs in the background
    /// (64 KiB shards), and the 20 KiB payloads are large values held on disk.
    /// </summary>
    private (string Name, int Weight, Func<Task> Run)[] Operations =>
    [
        ("insert", 12, () => Pick().InsertAsync(_random)),
        ("update", 10, () => Pick().UpdateAsync(_random)),
        ("upsert", 12, () => Pick().UpsertAsync(_random)),
        ("delete", 8, () => Pick().DeleteAsync(_random)),
        ("batch", 10, () => Pick().BatchAsync(_random)),
        ("burst", 6, () => Pick().BurstAsync(_random)),
        ("bulk import", 2, () => Pick().BulkImportAsync(_random)),
        ("snapshot across writes", 4, () => Pick().SnapshotAcrossWritesAsync(_random)),
        ("readers during writes", 3, () => Pick().ReadersDuringWritesAsync(_random)),
        ("query", 4, () => { Pick().Query(_random); return Task.CompletedTask; }),
        ("flush", 2, () => Store.FlushAsync()),
        ("compact", 2, () => Store.CompactAsync()),
        ("reopen", 2, ReopenAsync),
        ("crash", _kind == SoakStorage.Memory ? 2 : 0, CrashAsync),
        ("fault", 5, FaultAsync),
    ];

    private StellarStore Store => _store ?? throw new InvalidOperationException("no open store");

    private CrashFence Fence => _fence ?? throw new InvalidOperationException("no simulated process");

    private FaultInjectingStorage Faults => _faults ?? throw new InvalidOperationException("no open store");

    /// <summary>The storage faults injected so far, by timing, and the uncertain writes a recovery kept.</summary>
    public (int BeforeEffect, int AfterEffect, int KeptBeyondPromise) FaultFigures =>
        (_faultsBeforeEffect + (_faults?.FaultsBeforeEffect ?? 0), _faultsAfterEffect + (_faults?.FaultsAfterEffect ?? 0), _keptBeyondPromise);

    /// <summary>Runs <paramref name="steps"/> operations, checking every collection after each; returns how often each ran.</summary>
    public async Task<IReadOnlyDictionary<string, int>> RunAsync(int steps)
    {
        var operations = Operations;
        var total = operations.Sum(o => o.Weight);
        await OpenAsync();
        try
        {
            for (var step = 0; step < steps; step++)
            {
                var roll = _random.Next(total);
                var (name, _, run) = operations.First(o => (roll -= o.Weight) < 0);
                var context = string.Create(CultureInfo.InvariantCulture,
                    $"soak seed {_seed} ({_kind}, {_options.Durability}, {_options.Compression}, {(_options.EncryptionKey is null ? "plain" : "encrypted")}) step {step} ({name}); rerun with STELLAR_SEED={_seed}");
                _context = context;
                try
                {
                    await run();
                    foreach (var collection in _collections)
                    {
                        collection.Check(context);
                    }
                }
                catch (Exception e) when (e is not XunitException || !e.Message.StartsWith("soak seed", StringComparison.Ordinal))
                {
                    throw new XunitException($"{context}: {e}");
                }

                _counts[name] = _counts.GetValueOrDefault(name) + 1;
            }
        }
        finally
        {
            await Store.DisposeAsync();
            _fence?.Dispose();
        }

        return _counts;
    }

    private static string Payload(Random random)
    {
        // Mostly short; now and then 20 KiB, so the 64 KiB shards roll.
        var length = random.Next(10) == 0 ? 20_000 : random.Next(0, 300);
        return new string((char)('A' + random.Next(26)), length);
    }

    private ISoakCollection Pick() => _collections[_random.Next(_collections.Length)];

    private async Task OpenAsync()
    {
        _fence?.Dispose();
        _fence = _kind == SoakStorage.Memory ? new CrashFence(_memory) : null;
        if (_faults is not null)
        {
            _faultsBeforeEffect += _faults.FaultsBeforeEffect;
            _faultsAfterEffect += _faults.FaultsAfterEffect;
        }

        _faults = new FaultInjectingStorage(_fence is null ? new FileStorage(Path.GetFullPath(_path)) : _fence);
        _store = await StellarStore.OpenAsync(_faults, _options);
        foreach (var collection in _collections)
        {
            collection.Bind(_store);
        }
    }

    private async Task ReopenAsync()
    {
        await Store.DisposeAsync();
        await OpenAsync();
    }

    private async Task CrashAsync()
    {
        // What the mode promises to a crash: Buffered only what a flush covered, so it flushes first; WriteThrough
        // every acknowledged write through a crash of the process; Fsync through a crash of the machine.
        if (_options.Durability == Durability.Buffered)
        {
            await Store.FlushAsync();
        }

        await EndProcessAsync();
    }

    /// <summary>
    /// A storage fault, before or after its effect, at a random operation ahead, while one collection takes writes:
    /// the write that meets it fails with <see cref="StoreFaultedException"/> and every acknowledged write stays
    /// readable; then the process ends (a crash on <see cref="SoakStorage.Memory"/>, a dispose on files) and the
    /// store reopens showing one of the states from the last promised write to the last attempted one. The fault
    /// may also land in a background compaction of either collection, which must then lose nothing.
    /// </summary>
    private async Task FaultAsync()
    {
        // What the mode promises: Buffered only what a flush covered, so the model's promise starts at a flush.
        var promisedOnAck = _options.Durability != Durability.Buffered;
        if (!promisedOnAck)
        {
            await Store.FlushAsync();
        }

        var target = Pick();
        target.BeginUncertain();
        Faults.Timing = _random.Next(2) == 0 ? FaultTiming.BeforeEffect : FaultTiming.AfterEffect;
        Faults.TornAppendLength = _random.Next(0, 2_000);
        var armedAt = Faults.FaultCount;
        var faulted = false;
        if (_random.Next(2) == 0)
        {
            // The fault lands inside a compaction, after a few writes that give it garbage to collect: in its copy,
            // an output's rename, the manifest replace that swaps the output in, or a delete of the old shards.
            for (var n = _random.Next(0, 12); n > 0; n--)
            {
                await target.UncertainWriteAsync(_random, promisedOnAck);
            }

            ArmInsideCompaction();
            faulted = await CompactMayFailAsync();
        }
        else
        {
            Faults.FailOperationAt = Faults.OperationCount + _random.Next(1, 60);
        }

        // Then writes, until one fails or the fault has fired elsewhere (Buffered: now and then a flush, where the
        // bytes reach the storage), with now and then a compaction. A fault that lands in a background compaction
        // may fail nothing.
        for (var n = 0; n < 200 && !faulted && Faults.FaultCount == armedAt; n++)
        {
            faulted = await target.UncertainWriteAsync(_random, promisedOnAck)
                || (!promisedOnAck && _random.Next(8) == 0 && await FlushMayFailAsync(target))
                || (_random.Next(8) == 0 && await CompactMayFailAsync());
        }

        Disarm();

        // The store, faulted or not, still shows exactly the acknowledged writes.
        foreach (var collection in _collections)
        {
            collection.Check(_context + " (after the fault, before the reopen)");
        }

        await EndProcessAsync();
        _keptBeyondPromise += target.Resolve(_context);
    }

    /// <summary>A flush while a fault is armed: it promises what it covered, or fails as faulted. Returns whether it failed.</summary>
    private async Task<bool> FlushMayFailAsync(ISoakCollection target)
    {
        var error = await Record.ExceptionAsync(() => Store.FlushAsync());
        if (error is null)
        {
            target.Promise();
            return false;
        }

        Assert.IsType<StoreFaultedException>(error);
        return true;
    }

    /// <summary>
    /// A compaction while a fault is armed: a copy that fails is a clean <see cref="IOException"/> that changes
    /// nothing; a swap that fails faults the collection. Returns whether it faulted.
    /// </summary>
    private async Task<bool> CompactMayFailAsync()
    {
        var error = await Record.ExceptionAsync(() => Store.CompactAsync());
        if (error is StoreFaultedException)
        {
            return true;
        }

        if (error is not null)
        {
            Assert.IsType<IOException>(error, exactMatch: false);
        }

        foreach (var collection in _collections)
        {
            collection.Check(_context + " (after a compaction under an armed fault)");
        }

        return false;
    }

    private void ArmInsideCompaction()
    {
        switch (_random.Next(4))
        {
            case 0:
                Faults.FailOperationAt = Faults.OperationCount + _random.Next(1, 16);
                break;
            case 1:
                Faults.FailRenameAt = Faults.RenameCount + 1;
                break;
            case 2:
                Faults.FailReplaceAt = Faults.ReplaceCount + 1;
                break;
            default:
                Faults.FailDeleteAt = Faults.DeleteCount + 1;
                break;
        }
    }

    private void Disarm()
    {
        Faults.FailOperationAt = null;
        Faults.FailRenameAt = null;
        Faults.FailReplaceAt = null;
        Faults.FailDeleteAt = null;
    }

    /// <summary>The process that owns the store ends and a new one opens it: a crash in memory, a dispose on files.</summary>
    private async Task EndProcessAsync()
    {
        if (_fence is null)
        {
            await Crash.AbandonAsync(Store);
        }
        else
        {
            await Crash.AndAbandonAsync(Fence, _memory, Store, losesUnsyncedData: _options.Durability != Durability.WriteThrough, tornTail: _random);
        }

        await OpenAsync();
    }
}
