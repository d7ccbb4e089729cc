using Stellar.Store.TestHost.Workload;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>units &lt;dir&gt; &lt;seed&gt; &lt;durability&gt; &lt;compression&gt; &lt;encrypted&gt; [checkpoints]</c>: opens the store at <c>dir</c>,
/// prints <c>ready</c>, then runs <see cref="WriteVerb.Tasks"/> seeded <see cref="UnitStream"/>s concurrently, each step
/// one write across collections, and prints <c>ack &lt;task&gt; &lt;step&gt; .</c> after each step's task completed, until
/// it is killed; with <c>checkpoints</c>, takes checkpoints meanwhile (see <see cref="WriteVerb.RunTasks"/>).
/// </summary>
internal static class UnitsVerb
{
    public static int Run(string[] args) => WriteVerb.RunTasks("units", args, (store, seed) =>
    {
        var collections = UnitStream.Collections.Select(n => store.GetCollection<int, WorkloadItem>(n, i => i.Id)).ToArray();
        return task =>
        {
            var stream = new UnitStream(seed, task);
            return () =>
            {
                var writes = stream.Next();
                return store.WriteAsync(tx =>
                {
                    foreach (var (collection, key, item) in writes)
                    {
                        _ = item is null ? tx.In(collections[collection]).Delete(key) : tx.In(collections[collection]).Upsert(item);
                    }
                });
            };
        };
    });
}
