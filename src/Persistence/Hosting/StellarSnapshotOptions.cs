using System.Text;
using Akka.Configuration;
using Akka.Persistence.Hosting;

namespace Stellar.Store.Persistence.Hosting;

/// <summary>
/// The Stellar snapshot store's settings for Akka.Hosting (<c>WithStellarPersistence</c>, or Akka.Persistence.Hosting's
/// <c>WithSnapshot</c>); they become the HOCON block <c>akka.persistence.snapshot-store.{Identifier}</c>.
/// </summary>
/// <remarks>Thread safety: set while the host is being built, from one thread.</remarks>
public sealed class StellarSnapshotOptions : SnapshotOptions
{
    /// <summary>Options for the snapshot store <c>akka.persistence.snapshot-store.{identifier}</c>, the default one when <paramref name="isDefaultPlugin"/>.</summary>
    public StellarSnapshotOptions(bool isDefaultPlugin = true, string identifier = "stellar")
        : base(isDefaultPlugin)
    {
        ArgumentException.ThrowIfNullOrEmpty(identifier);
        Identifier = identifier;
    }

    /// <inheritdoc />
    public override string Identifier { get; set; }

    /// <summary>The store's directory. Required. The journal may share it (one open store, with the same settings).</summary>
    public string Path { get; set; } = string.Empty;

    /// <summary>What an acknowledged save survives (docs/durability.md). Default <see cref="Durability.WriteThrough"/>.</summary>
    public Durability Durability { get; set; } = Durability.WriteThrough;

    /// <summary>Block compression. Default <see cref="Compression.Lz4"/>.</summary>
    public Compression Compression { get; set; } = Compression.Lz4;

    /// <summary>A 32-byte key that encrypts the store, or null.</summary>
    public IReadOnlyList<byte>? EncryptionKey { get; set; }

    /// <summary>A passphrase the key is derived from, or null; not with <see cref="EncryptionKey"/>.</summary>
    public string? EncryptionPassphrase { get; set; }

    /// <summary>The collection that holds the snapshots. Default <c>akka-snapshots</c>.</summary>
    public string Collection { get; set; } = "akka-snapshots";

    /// <inheritdoc />
    protected override Config InternalDefaultConfig => StellarPersistence.DefaultConfiguration().GetConfig(StellarPersistence.SnapshotStorePluginId);

    /// <inheritdoc />
    protected override StringBuilder Build(StringBuilder sb)
    {
        ArgumentNullException.ThrowIfNull(sb);
        HoconSettings.Append(sb, Path, Durability, Compression, EncryptionKey, EncryptionPassphrase, Collection);
        return base.Build(sb);
    }
}
