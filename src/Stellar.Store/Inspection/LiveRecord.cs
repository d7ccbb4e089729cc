namespace Stellar.Store.Inspection;

/// <summary>
/// A record a reader of the collection would see: its key and value as MessagePack bytes, and when it expires (UTC
/// ticks, 0 for a record that lasts).
/// </summary>
internal readonly record struct LiveRecord(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value, long ExpiresAt);
