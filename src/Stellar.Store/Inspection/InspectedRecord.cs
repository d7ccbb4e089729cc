using Stellar.Store.Format;

namespace Stellar.Store.Inspection;

/// <summary>
/// One record of a verified block as it is on disk: its kind, its key and value as MessagePack bytes (a delete's value
/// is empty), and when it expires (UTC ticks, 0 for a record that lasts).
/// </summary>
internal readonly record struct InspectedRecord(RecordKind Kind, ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value, long ExpiresAt);
