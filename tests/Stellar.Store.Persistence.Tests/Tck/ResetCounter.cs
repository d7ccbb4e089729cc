// Adapted from Akka.Persistence.TCK (Performance/JournalPerfSpec.cs) of the Akka.NET project, Apache License 2.0.

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Starts the bench actor's count again.</summary>
internal sealed class ResetCounter
{
    public static readonly ResetCounter Instance = new();
}
