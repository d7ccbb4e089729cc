namespace Stellar.Store.Codecs;

/// <summary>
/// What the manifest records about a store's encryption: how to re-derive the master key from the user's key or
/// passphrase, and a key check that tells a right key from a wrong one. None of it is secret. Made by
/// <see cref="KeyMaterial.Create"/>, read by <see cref="KeyMaterial.Unlock"/>; serialized with System.Text.Json.
/// </summary>
/// <remarks>
/// Equality compares the byte arrays by content. The arrays are shared, not copied: treat them as read-only.
/// </remarks>
internal sealed record EncryptionInfo
{
    /// <summary><see cref="Kdf"/> of a store opened with a raw 32-byte key (HKDF-SHA256 with <see cref="Salt"/>).</summary>
    public const string RawKdf = "raw";

    /// <summary><see cref="Kdf"/> of a store opened with a passphrase (PBKDF2-HMAC-SHA256 with <see cref="Salt"/>).</summary>
    public const string Pbkdf2Sha256Kdf = "pbkdf2-sha256";

    /// <summary>How the master key is derived: <see cref="RawKdf"/> or <see cref="Pbkdf2Sha256Kdf"/>.</summary>
    public required string Kdf { get; init; }

    /// <summary>The random salt of the derivation, unique to the store.</summary>
    public required byte[] Salt { get; init; }

    /// <summary>PBKDF2 iterations for <see cref="Pbkdf2Sha256Kdf"/>; zero for <see cref="RawKdf"/>.</summary>
    public int Iterations { get; init; }

    /// <summary>Nonce, ciphertext and tag of a known constant encrypted under a key derived from the master key.</summary>
    public required byte[] KeyCheck { get; init; }

    /// <summary>True when every property is equal, the byte arrays by content.</summary>
    public bool Equals(EncryptionInfo? other) =>
        other is not null
        && Kdf == other.Kdf
        && Iterations == other.Iterations
        && Salt.AsSpan().SequenceEqual(other.Salt)
        && KeyCheck.AsSpan().SequenceEqual(other.KeyCheck);

    /// <summary>A hash over every property, the byte arrays by content.</summary>
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(Kdf);
        hash.Add(Iterations);
        hash.AddBytes(Salt);
        hash.AddBytes(KeyCheck);
        return hash.ToHashCode();
    }
}
