namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>An event was persisted.</summary>
internal sealed class Ack
{
    public static readonly Ack Instance = new();
}
