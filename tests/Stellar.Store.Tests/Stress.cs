namespace Stellar.Store.Tests;

/// <summary>
/// Long stress and soak variants run only when the environment variable <c>STELLAR_STRESS</c> is <c>1</c>; the
/// short variant of each always runs.
/// </summary>
internal static class Stress
{
    /// <summary>Whether the long variants run.</summary>
    public static bool Enabled { get; } = Environment.GetEnvironmentVariable("STELLAR_STRESS") == "1";

    /// <summary><paramref name="stress"/> when the long variants run, else <paramref name="normal"/>.</summary>
    public static TimeSpan Duration(TimeSpan normal, TimeSpan stress) => Enabled ? stress : normal;
}
