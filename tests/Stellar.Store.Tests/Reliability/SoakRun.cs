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
    private StellarStore? _store;

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
    ];

    private StellarStore Store => _store ?? throw new InvalidOperationException("no open store");

    private CrashFence Fence => _fence ?? throw new InvalidOperationException("no simulated process");

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
        _store = _fence is null
            ? await StellarStore.OpenAsync(_path, _options)
            : await StellarStore.OpenAsync(_fence, _options);
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

        Fence.Crash(() => _memory.SimulateCrash(losesUnsyncedData: _options.Durability != Durability.WriteThrough, tornTail: _random));
        await Record.ExceptionAsync(async () => await Store.DisposeAsync());
        await OpenAsync();
    }
}
