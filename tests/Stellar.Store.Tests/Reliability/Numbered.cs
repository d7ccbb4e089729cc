namespace Stellar.Store.Tests.Reliability;

/// <summary>A record with an id and a payload.</summary>
public sealed record Numbered(int Id, byte[] Payload);
