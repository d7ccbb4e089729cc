using System.Globalization;

namespace Stellar.Store.Tests.Support;

/// <summary>
/// The opt-in switch for long runs: <c>STELLAR_STRESS=1</c> turns every stress and soak test from its short default
/// into its long version. <c>STELLAR_SEED=n</c> runs only seed n, to replay the seed a failure names (use it with
/// <c>--filter</c> on the failing test).
/// </summary>
public static class Stress
{
    /// <summary>Whether <c>STELLAR_STRESS=1</c> is set.</summary>
    public static bool Enabled { get; } = Environment.GetEnvironmentVariable("STELLAR_STRESS") == "1";

    /// <summary>The seed <c>STELLAR_SEED</c> asks for, if any.</summary>
    public static int? Seed { get; } =
        int.TryParse(Environment.GetEnvironmentVariable("STELLAR_SEED"), NumberStyles.Integer, CultureInfo.InvariantCulture, out var seed) ? seed : null;

    /// <summary><paramref name="normal"/> in the default run, <paramref name="stress"/> with the flag.</summary>
    public static int Pick(int normal, int stress) => Enabled ? stress : normal;

    /// <summary><paramref name="normal"/> in the default run, <paramref name="stress"/> with the flag.</summary>
    public static TimeSpan Duration(TimeSpan normal, TimeSpan stress) => Enabled ? stress : normal;

    /// <summary>The seeds to run: <c>first, first + 1, ...</c>, <see cref="Pick"/> of them, or only <see cref="Seed"/>.</summary>
    public static IReadOnlyList<int> Seeds(int first, int normal, int stress) =>
        Seed is { } one ? [one] : Enumerable.Range(first, Pick(normal, stress)).ToArray();
}
