namespace Stellar.Store;

/// <summary>
/// A write's outcome is uncertain because the storage failed (I/O error, full disk, failed fsync). The write may
/// or may not be on disk; it was never acknowledged. The collection is faulted: later writes fail fast with
/// this exception until the store is reopened, which recovers every acknowledged write.
/// </summary>
public sealed class StoreFaultedException : StellarStoreException
{
    /// <summary>Creates the exception with the storage failure as <paramref name="innerException"/>.</summary>
    public StoreFaultedException(string message, Exception? innerException) : base(message, innerException) { }
}
