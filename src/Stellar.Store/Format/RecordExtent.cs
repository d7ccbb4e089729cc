namespace Stellar.Store.Format;

/// <summary>
/// Where one record's parts lie in a block's raw payload, as <see cref="RecordFormat.TryRead(ReadOnlySpan{byte}, ref int, out RecordExtent)"/>
/// found them: offsets are from the start of the payload, so a caller can slice the payload's own array or memory
/// without copying and without knowing the layout. <see cref="ExpiresAt"/> is when an expiring put expires (UTC
/// ticks), or 0 for a record that does not expire.
/// </summary>
internal readonly record struct RecordExtent(RecordKind Kind, int Start, int Length, int KeyOffset, int KeyLength, int ValueOffset, int ValueLength, long ExpiresAt = 0);
