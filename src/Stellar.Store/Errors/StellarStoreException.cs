namespace Stellar.Store;

/// <summary>
/// The base of every exception Stellar.Store throws for a condition of the store itself (as opposed to a bad
/// argument, which gets the BCL's <see cref="ArgumentException"/> family).
/// </summary>
public class StellarStoreException : Exception
{
    /// <summary>Creates the exception with a message.</summary>
    public StellarStoreException(string message) : base(message) { }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    public StellarStoreException(string message, Exception? innerException) : base(message, innerException) { }
}
