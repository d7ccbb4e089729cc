using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>Reads a collection's change feed in tests, which must end where a live feed waits.</summary>
internal static class FeedReading
{
    /// <summary>A read that does not reach its end in this long is a hang, reported as a failure rather than waited out.</summary>
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(2);

    /// <summary>
    /// The changes after <paramref name="from"/> up to the committed end as it is when called: the feed is read until a
    /// change's position reaches that end (the test's last write must be a put, so some change does).
    /// </summary>
    public static async Task<List<Change<int, Account>>> ReadToEndAsync(Collection<int, Account> collection, ChangePosition from)
    {
        var end = collection.Engine.Feed.End;
        var changes = new List<Change<int, Account>>();
        if (from >= end && !from.IsSnapshot && from != ChangePosition.Start)
        {
            return changes;
        }

        using var guard = new CancellationTokenSource(HangGuard);
        await foreach (var change in collection.Changes(from, guard.Token))
        {
            changes.Add(change);
            if (change.Position >= end)
            {
                break;
            }
        }

        return changes;
    }

    /// <summary>The first <paramref name="count"/> changes of <paramref name="changes"/>, which must hold that many.</summary>
    public static async Task<List<Change<TKey, TValue>>> ReadAsync<TKey, TValue>(IAsyncEnumerable<Change<TKey, TValue>> changes, int count)
        where TKey : notnull
    {
        using var guard = new CancellationTokenSource(HangGuard);
        var read = new List<Change<TKey, TValue>>();
        await foreach (var change in changes.WithCancellation(guard.Token))
        {
            read.Add(change);
            if (read.Count == count)
            {
                break;
            }
        }

        return read;
    }

    /// <summary>The keys of the first <paramref name="count"/> changes of <paramref name="changes"/>, which must hold that many.</summary>
    public static async Task<List<TKey>> ReadKeysAsync<TKey, TValue>(IAsyncEnumerable<Change<TKey, TValue>> changes, int count)
        where TKey : notnull =>
        (await ReadAsync(changes, count)).ConvertAll(change => change.Key);

    /// <summary>The positions of the first <paramref name="count"/> changes of <paramref name="collection"/>, read from its start.</summary>
    public static async Task<List<ChangePosition>> ReadPositionsAsync<TKey, TValue>(Collection<TKey, TValue> collection, int count)
        where TKey : notnull =>
        (await ReadAsync(collection.Changes(ChangePosition.Start), count)).ConvertAll(change => change.Position);

    /// <summary>Applies <paramref name="changes"/> in order to <paramref name="state"/>: what a consumer of the feed holds.</summary>
    public static Dictionary<int, Account> Apply(IEnumerable<Change<int, Account>> changes, Dictionary<int, Account>? state = null)
    {
        state ??= new Dictionary<int, Account>();
        foreach (var change in changes)
        {
            if (change.Kind == ChangeKind.Put)
            {
                state[change.Key] = change.Value!;
            }
            else
            {
                state.Remove(change.Key);
            }
        }

        return state;
    }
}
