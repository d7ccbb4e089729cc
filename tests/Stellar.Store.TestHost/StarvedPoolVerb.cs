using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>starved-pool &lt;dir&gt;</c>: stores some records, then opens the store again with writers on threads of their own
/// (<see cref="StoreOptions.DedicatedThreads"/>), caps the thread pool at one thread per core, and fills it with work
/// items that each wait synchronously (sync over async, as game code does) for a collection with an index declared
/// with its load and for that index, for an index declared on the loaded collection, for writes to it, one by one
/// (inserts, upserts, deletes, an atomic batch and one larger than 64 KiB), then for a flush of the store (as an
/// autosave on a timer does), more items than the pool has threads. Prints
/// <see cref="DoneLine"/> and exits 0 once every item is done and the records and the index read back; never finishes
/// if a step of those needs a pool thread.
/// </summary>
internal static class StarvedPoolVerb
{
    /// <summary>Printed once every item's writes completed and read back.</summary>
    public const string DoneLine = "starved pool: done";

    private const string CollectionName = "starved";

    private const int WritesPerItem = 10;

    /// <summary>Records stored before the pool is capped, so that the load has an index to build: ids below zero, of no item.</summary>
    private const int Stored = 2_000;

    /// <summary>The records of each item, in the order of their ids: built with the collection's load.</summary>
    private static readonly IndexDefinition<int, WorkloadItem> ByTask = new("by-task", i => i.Task);

    /// <summary>A payload two of which make a batch larger than the 64 KiB a group may take to commit on the writer's turn.</summary>
    private const int LargePayload = 20 * 1024;

    /// <summary>The records by step: declared on the loaded collection, by the first item to ask for it.</summary>
    private static readonly IndexDefinition<int, WorkloadItem> ByStep = new("by-step", i => i.Step);

    public static int Run(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: starved-pool <store directory>");
            return ExitCodes.Usage;
        }

        Store(args[0]);
        var cores = Environment.ProcessorCount;
        if (!ThreadPool.SetMinThreads(1, 1) || !ThreadPool.SetMaxThreads(cores, cores))
        {
            Console.Error.WriteLine($"the thread pool refused a cap of {cores} threads");
            return ExitCodes.Usage;
        }

        var store = StellarStore.OpenAsync(args[0], new StoreOptions { Durability = Durability.WriteThrough, DedicatedThreads = true }).GetAwaiter().GetResult();
        try
        {
            return WriteFromEveryThread(store, cores * 4);
        }
        finally
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    /// <summary>Stores the records of no item, with the pool as it is.</summary>
    private static void Store(string directory)
    {
        var store = StellarStore.OpenAsync(directory, new StoreOptions { Durability = Durability.WriteThrough }).GetAwaiter().GetResult();
        try
        {
            var records = store.GetCollection<int, WorkloadItem>(CollectionName, i => i.Id);
            for (var first = -Stored; first < 0; first += 500)
            {
                var from = first;
                records.WriteAsync(batch =>
                {
                    for (var id = from; id < from + 500; id++)
                    {
                        batch.Insert(new WorkloadItem(id, -1, 0, ""));
                    }
                }).GetAwaiter().GetResult();
            }
        }
        finally
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    private static int WriteFromEveryThread(StellarStore store, int items)
    {
        var failures = new List<Exception>();
        using (var done = new CountdownEvent(items))
        {
            for (var item = 0; item < items; item++)
            {
                ThreadPool.UnsafeQueueUserWorkItem(Write, (store, item, failures, done), preferLocal: false);
            }

            done.Wait();
        }

        if (failures.Count > 0)
        {
            Console.Error.WriteLine(string.Join(Environment.NewLine, failures));
            return ExitCodes.WorkloadFailed;
        }

        var records = store.GetCollection<int, WorkloadItem>(CollectionName, i => i.Id);
        var expected = Enumerable.Range(-Stored, Stored).Concat(Enumerable.Range(0, items * WritesPerItem).Where(id => id % WritesPerItem > 1)).ToList();
        var stored = records.Query(_ => true).OrderBy(i => i.Id).ToList();
        if (!stored.Select(i => i.Id).SequenceEqual(expected))
        {
            Console.Error.WriteLine($"read back {stored.Count} records, expected {expected.Count}");
            return ExitCodes.WorkloadFailed;
        }

        foreach (var (index, order) in new[] { (ByTask, (Func<WorkloadItem, int>)(i => i.Task)), (ByStep, i => i.Step) })
        {
            var indexed = records.Index(index).All().Select(i => i.Id).ToList();
            var ordered = stored.OrderBy(order).ThenBy(i => i.Id).Select(i => i.Id).ToList();
            if (!indexed.SequenceEqual(ordered))
            {
                Console.Error.WriteLine($"index '{index.Name}' lists {indexed.Count} records, not the {ordered.Count} stored in its order");
                return ExitCodes.WorkloadFailed;
            }
        }

        Console.Out.WriteLine(DoneLine);
        return ExitCodes.Success;
    }

    private static void Write((StellarStore Store, int Item, List<Exception> Failures, CountdownEvent Done) state)
    {
        try
        {
            // Every item asks for the collection and its index: the first loads both, the others wait for that load or
            // find it loaded, and the index answering. Then for a second index, which the first to ask declares on the
            // loaded collection, and which is built beside its writer.
            var records = state.Store.GetCollection<int, WorkloadItem>(CollectionName, i => i.Id, ByTask);
            records.Index(ByTask).Ready.GetAwaiter().GetResult();
            records.Index(ByStep).Ready.GetAwaiter().GetResult();
            var first = state.Item * WritesPerItem;
            for (var step = 0; step < WritesPerItem; step++)
            {
                var item = new WorkloadItem(first + step, state.Item, step, "");
                if (step % 2 == 0)
                {
                    records.InsertAsync(item).GetAwaiter().GetResult();
                }
                else
                {
                    records.UpsertAsync(item).GetAwaiter().GetResult();
                }
            }

            // Each item's first two records go again, so that the read-back tells a lost delete from a lost write.
            records.DeleteAsync(first).GetAwaiter().GetResult();
            records.WriteAsync(batch =>
            {
                batch.Delete(first + 1);
                batch.Upsert(new WorkloadItem(first + 2, state.Item, WritesPerItem, "batch"));
            }).GetAwaiter().GetResult();

            // A batch larger than a block the writer commits on its turn: its group commits elsewhere.
            records.WriteAsync(batch =>
            {
                for (var step = 3; step < WritesPerItem; step++)
                {
                    batch.Upsert(new WorkloadItem(first + step, state.Item, step, new string((char)('a' + step), LargePayload)));
                }
            }).GetAwaiter().GetResult();
            state.Store.FlushAsync().GetAwaiter().GetResult();
        }
        catch (Exception e)
        {
            lock (state.Failures)
            {
                state.Failures.Add(e);
            }
        }
        finally
        {
            state.Done.Signal();
        }
    }
}
