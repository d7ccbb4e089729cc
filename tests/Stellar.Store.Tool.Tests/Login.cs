namespace Stellar.Store.Tool.Tests;

/// <summary>A value with a <see cref="DateTime"/>, which MessagePack stores as a timestamp extension.</summary>
public sealed record Login
{
    public string Name { get; set; } = "";

    public DateTime At { get; set; }
}
