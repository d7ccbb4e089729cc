namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Asks for the recovered list.</summary>
internal sealed class GetAll
{
    public static readonly GetAll Instance = new();
}
