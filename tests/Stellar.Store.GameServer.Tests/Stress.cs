namespace Stellar.Store.GameServer.Tests;

/// <summary>Long variants run only when STELLAR_STRESS=1.</summary>
internal static class Stress
{
    public static bool Enabled => Environment.GetEnvironmentVariable("STELLAR_STRESS") == "1";
}
