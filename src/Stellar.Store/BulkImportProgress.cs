namespace Stellar.Store;

/// <summary>Progress of a bulk import: records and encoded bytes committed so far.</summary>
public readonly record struct BulkImportProgress(long Records, long Bytes);
