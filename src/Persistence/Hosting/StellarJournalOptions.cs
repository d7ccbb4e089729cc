using System.Text;
using Akka.Configuration;
using Akka.Hosting;
using Akka.Persistence.Hosting;

namespace Stellar.Store.Persistence.Hosting;

/// <summary>
/// The Stellar journal's settings for Akka.Hosting (<c>WithStellarPersistence</c>, or Akka.Persistence.Hosting's
/// <c>WithJournal</c>); they become the HOCON block <c>akka.persistence.journal.{Identifier}</c>.
/// </summary>
/// <remarks>Thread safety: set while the host is being built, from one thread.</remarks>
public sealed class StellarJournalOptions : JournalOptions
{
    /// <summary>Options for the journal <c>akka.persistence.journal.{identifier}</c>, the default journal when <paramref name="isDefaultPlugin"/>.</summary>
    public StellarJournalOptions(bool isDefaultPlugin = true, string identifier = "stellar")
        : base(isDefaultPlugin)
    {
        ArgumentException.ThrowIfNullOrEmpty(identifier);
        Identifier = identifier;
    }

    /// <inheritdoc />
    public override string Identifier { get; set; }

    /// <summary>The store's directory. Required. The snapshot store may share it (one open store).</summary>
    public string Path { get; set; } = string.Empty;

    /// <summary>What an acknowledged write survives (docs/durability.md). Default <see cref="Durability.WriteThrough"/>.</summary>
    public Durability Durability { get; set; } = Durability.WriteThrough;

    /// <summary>Block compression. Default <see cref="Compression.Lz4"/>.</summary>
    public Compression Compression { get; set; } = Compression.Lz4;

    /// <summary>A 32-byte key that encrypts the store, or null.</summary>
    public IReadOnlyList<byte>? EncryptionKey { get; set; }

    /// <summary>A passphrase the key is derived from, or null; not with <see cref="EncryptionKey"/>.</summary>
    public string? EncryptionPassphrase { get; set; }

    /// <summary>The collection that holds the events. Default <c>akka-journal</c>.</summary>
    public string Collection { get; set; } = "akka-journal";

    /// <inheritdoc />
    protected override Config InternalDefaultConfig => StellarPersistence.DefaultConfiguration().GetConfig(StellarPersistence.JournalPluginId);

    /// <inheritdoc />
    protected override StringBuilder Build(StringBuilder sb)
    {
        ArgumentNullException.ThrowIfNull(sb);
        HoconSettings.Append(sb, Path, Durability, Compression, EncryptionKey, EncryptionPassphrase, Collection);
        return base.Build(sb);
    }
}
