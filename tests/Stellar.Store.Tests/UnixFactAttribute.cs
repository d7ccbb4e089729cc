namespace Stellar.Store.Tests;

/// <summary>A fact about Unix behaviour (file modes): reported as skipped, with the reason, on Windows.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class UnixFactAttribute : FactAttribute
{
    public UnixFactAttribute()
    {
        if (OperatingSystem.IsWindows())
        {
            Skip = "Unix file modes do not exist on Windows.";
        }
    }
}
