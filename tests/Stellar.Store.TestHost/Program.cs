namespace Stellar.Store.TestHost;

/// <summary>
/// Runs one verb, named by the first argument, for a test in another process: <c>lock &lt;dir&gt;</c> holds a
/// store's lock until killed; <c>lock-twice &lt;dir&gt;</c> also tries a second lock in the same
/// process (see <see cref="LockTwiceVerb"/>); <c>write &lt;dir&gt; ...</c> writes a seeded workload until killed (see
/// <see cref="WriteVerb"/>); <c>units &lt;dir&gt; ...</c> writes seeded units across collections until killed (see
/// <see cref="UnitsVerb"/>); <c>fixture &lt;dir&gt; plain|encrypted</c> writes a format fixture store (see
/// <see cref="FixtureVerb"/>); <c>fixture-units &lt;dir&gt;</c> writes the units fixture store (see
/// <see cref="FixtureUnitsVerb"/>); <c>persist &lt;dir&gt; &lt;actors&gt;</c> runs persistent actors on the Stellar
/// journal until killed (see <see cref="PersistVerb"/>); <c>fixture-cursors &lt;dir&gt;</c> writes the cursors fixture
/// store (see <see cref="FixtureCursorsVerb"/>); <c>feed-hold &lt;dir&gt;</c> writes while a lagging cursor holds
/// compaction, until killed (see <see cref="FeedHoldVerb"/>); <c>starved-pool &lt;dir&gt;</c> writes from a capped
/// thread pool whose every thread waits synchronously for the store (see <see cref="StarvedPoolVerb"/>). Verbs report progress as single lines on standard output, which the parent reads,
/// and errors on standard error.
/// </summary>
internal static class Program
{
    private static readonly Dictionary<string, Func<string[], int>> Verbs = new(StringComparer.Ordinal)
    {
        ["lock"] = LockVerb.Run,
        ["lock-twice"] = LockTwiceVerb.Run,
        ["write"] = WriteVerb.Run,
        ["units"] = UnitsVerb.Run,
        ["fixture"] = FixtureVerb.Run,
        ["fixture-units"] = FixtureUnitsVerb.Run,
        ["persist"] = PersistVerb.Run,
        ["fixture-cursors"] = FixtureCursorsVerb.Run,
        ["feed-hold"] = FeedHoldVerb.Run,
        ["starved-pool"] = StarvedPoolVerb.Run,
    };

    public static int Main(string[] args)
    {
        if (args.Length == 0 || !Verbs.TryGetValue(args[0], out var verb))
        {
            Console.Error.WriteLine($"usage: Stellar.Store.TestHost <verb> [arguments]; verbs: {string.Join(", ", Verbs.Keys)}");
            return ExitCodes.Usage;
        }

        return verb(args[1..]);
    }
}
