namespace Stellar.Store;

/// <summary>
/// The encryption key (or passphrase) given at open does not match the store's key check, or the store's
/// encryption setting does not match the options (a key for a plain store, none for an encrypted one).
/// Nothing on disk was changed.
/// </summary>
public sealed class WrongKeyException : StellarStoreException
{
    /// <summary>Creates the exception with a message that says which mismatch it was.</summary>
    public WrongKeyException(string message) : base(message) { }
}
