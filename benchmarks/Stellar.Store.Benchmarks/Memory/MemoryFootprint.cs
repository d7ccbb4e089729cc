using System.Globalization;
using System.Text;
using MessagePack;
using Stellar.Store.Benchmarks.Infrastructure;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Memory;

/// <summary>
/// Memory per record (the <c>memory</c> verb): the managed bytes a process retains after loading small records into a
/// <see cref="Dictionary{TKey,TValue}"/> (filled with <c>Add</c>, not presized, as an application would) and after
/// opening a bulk-imported Stellar store of the same records, each measured in a fresh child process so that neither
/// sees the other's heap. Retained bytes are <see cref="GC.GetTotalMemory(bool)"/> after a full collection once the
/// load is done, minus the same before it; the store's figure per record subtracts a child that opens an empty store,
/// so the fixed cost of a store (its actor system, thread pools) is reported apart; a fourth child opens the store and
/// builds an index on the score, and the difference to the plain store is what an index keeps per record. Resident
/// memory is the child's working set (VmRSS) at the end.
/// </summary>
public static class MemoryFootprint
{
    /// <summary>The verb that runs one measurement in a child process.</summary>
    public const string ChildVerb = "memory-child";

    private static readonly string[] Kinds = ["dictionary", "store-empty", "store", "store-indexed", "store-expiring"];

    /// <summary>Builds the store, measures each kind in a child process, writes <c>memory.md</c> and <c>memory.csv</c>.</summary>
    public static int Run(string resultsFolder, int records)
    {
        var root = Path.Combine(Paths.StoresRoot, $"memory-{Guid.NewGuid():n}");
        var full = Paths.FreshDirectory(root, "full");
        var empty = Paths.FreshDirectory(root, "empty");
        var expiring = Paths.FreshDirectory(root, "expiring");
        try
        {
            var (store, collection) = Peers.Stellar.OpenSmall(full, Options);
            collection.BulkImportAsync(Data.SmallRange(records)).GetAwaiter().GetResult();
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();

            // The same records, each written with an expiry a year away (a bulk import writes none).
            (store, collection) = Peers.Stellar.OpenSmall(expiring, Options);
            foreach (var chunk in Data.SmallRange(records).Chunk(1_000))
            {
                collection.WriteAsync(batch => Array.ForEach(chunk, r => batch.Upsert(r, TimeSpan.FromDays(365)))).GetAwaiter().GetResult();
            }

            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
            (store, _) = Peers.Stellar.OpenSmall(empty, Options);
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();

            var measured = new Dictionary<string, (long Retained, long Resident)>();
            foreach (var kind in Kinds)
            {
                measured[kind] = RunChild(kind, records, kind switch { "store-empty" => empty, "store-expiring" => expiring, _ => full });
                Console.WriteLine($"{kind}: retained {measured[kind].Retained:N0} B, resident {measured[kind].Resident:N0} B");
            }

            Directory.CreateDirectory(resultsFolder);
            Write(resultsFolder, records, measured);
            return 0;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>In a child process: loads one kind, prints "retained resident" in bytes.</summary>
    public static int Child(string[] args)
    {
        var kind = args[0];
        var records = int.Parse(args[1], CultureInfo.InvariantCulture);
        var directory = args[2];
        var before = GC.GetTotalMemory(forceFullCollection: true);
        object held;
        if (kind == "dictionary")
        {
            // The same objects the store holds: deserialized from their MessagePack bytes.
            var dictionary = new Dictionary<int, SmallRecord>();
            foreach (var record in Data.SmallRange(records))
            {
                var copy = MessagePackSerializer.Deserialize<SmallRecord>(MessagePackSerializer.Serialize(record));
                dictionary.Add(copy.Id, copy);
            }

            held = dictionary;
        }
        else
        {
            var (store, collection) = Peers.Stellar.OpenSmall(directory, Options);
            if (collection.Count != (kind == "store-empty" ? 0 : records))
            {
                throw new InvalidOperationException($"the store opened with {collection.Count} records");
            }

            if (kind == "store-indexed")
            {
                // What an index keeps: its entries, list nodes and each record's current entry, after the build.
                collection.Index("by-score", r => r.Score).Ready.GetAwaiter().GetResult();
            }

            held = store;
        }

        var retained = GC.GetTotalMemory(forceFullCollection: true) - before;
        Console.WriteLine(FormattableString.Invariant($"{retained} {Environment.WorkingSet}"));
        GC.KeepAlive(held);
        return 0;
    }

    private static StoreOptions Options => Peers.Stellar.Options(Durability.WriteThrough);

    private static (long Retained, long Resident) RunChild(string kind, int records, string directory)
    {
        var parts = ChildProcess.LastLine(ChildVerb, kind, records.ToString(CultureInfo.InvariantCulture), directory).Split(' ');
        if (parts.Length != 2)
        {
            throw new InvalidOperationException($"the {kind} child wrote '{string.Join(' ', parts)}', not its retained and resident bytes");
        }

        return (long.Parse(parts[0], CultureInfo.InvariantCulture), long.Parse(parts[1], CultureInfo.InvariantCulture));
    }

    private static void Write(string folder, int records, Dictionary<string, (long Retained, long Resident)> m)
    {
        var dictionary = (double)m["dictionary"].Retained / records;
        var store = (double)(m["store"].Retained - m["store-empty"].Retained) / records;
        var ratio = store / dictionary;
        var index = (double)(m["store-indexed"].Retained - m["store"].Retained) / records;
        var expiry = (double)(m["store-expiring"].Retained - m["store"].Retained) / records;
        var csv = new StringBuilder("Kind,Records,RetainedBytes,ResidentBytes,BytesPerRecord\n");
        foreach (var kind in Kinds)
        {
            var perRecord = kind switch { "dictionary" => dictionary, "store" => store, "store-indexed" => index, "store-expiring" => expiry, _ => 0 };
            csv.Append(CultureInfo.InvariantCulture, $"{kind},{(kind == "store-empty" ? 0 : records)},{m[kind].Retained},{m[kind].Resident},{perRecord:F1}\n");
        }

        File.WriteAllText(Path.Combine(folder, "memory.csv"), csv.ToString());
        var md = new StringBuilder();
        md.Append(CultureInfo.InvariantCulture, $"# Memory per record ({records:N0} small records, each kind in a fresh process)\n\n");
        md.Append("| kind | retained managed bytes | per record | resident (VmRSS) |\n|---|---:|---:|---:|\n");
        md.Append(CultureInfo.InvariantCulture, $"| `Dictionary<int, SmallRecord>` | {m["dictionary"].Retained:N0} | {dictionary:F1} B | {m["dictionary"].Resident / 1048576.0:F0} MiB |\n");
        md.Append(CultureInfo.InvariantCulture, $"| Stellar.Store, empty store (fixed cost) | {m["store-empty"].Retained:N0} | | {m["store-empty"].Resident / 1048576.0:F0} MiB |\n");
        md.Append(CultureInfo.InvariantCulture, $"| Stellar.Store, opened | {m["store"].Retained:N0} | {store:F1} B (minus the empty store) | {m["store"].Resident / 1048576.0:F0} MiB |\n");
        md.Append(CultureInfo.InvariantCulture, $"| Stellar.Store, opened, with an index on the score | {m["store-indexed"].Retained:N0} | {index:F1} B more (the index) | {m["store-indexed"].Resident / 1048576.0:F0} MiB |\n");
        md.Append(CultureInfo.InvariantCulture, $"| Stellar.Store, opened, every record written with an expiry | {m["store-expiring"].Retained:N0} | {expiry:F1} B more (the expiry) | {m["store-expiring"].Resident / 1048576.0:F0} MiB |\n\n");
        md.Append(CultureInfo.InvariantCulture, $"Ratio (store / dictionary, per record): **{ratio:F2}×** (goal ≤ 1.3×: {(ratio <= 1.3 ? "met" : "missed")}).\n");
        File.WriteAllText(Path.Combine(folder, "memory.md"), md.ToString());
        Console.WriteLine(md.ToString());
    }
}
