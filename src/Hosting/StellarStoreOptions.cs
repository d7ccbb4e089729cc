namespace Stellar.Store.Hosting;

/// <summary>
/// What <c>AddStellarStore</c> opens: the store's directory and its <see cref="StoreOptions"/>. Bound from a
/// configuration section whose keys are <c>Path</c> and the names of <see cref="StoreOptions"/>' properties
/// (<c>Durability</c>, <c>Compression</c>, <c>EncryptionKey</c> in base64, <c>EncryptionPassphrase</c>, ...), or set in code.
/// Checked once, when the host starts, by the same rules as <see cref="StellarStore.OpenAsync(string, StoreOptions?, CancellationToken)"/>:
/// a bad option fails the start with an <c>OptionsValidationException</c> that names it.
/// </summary>
/// <remarks>
/// Thread safety: an options object is filled in by the options system before the host starts and only read after; it
/// is not meant to be changed by several threads at once.
/// </remarks>
public sealed class StellarStoreOptions
{
    /// <summary>
    /// The store's directory, created at the first start when it holds no store. Required. A relative path is taken from
    /// the host's content root (<c>IHostEnvironment.ContentRootPath</c>), not the process's current directory.
    /// </summary>
    public string? Path { get; set; }

    /// <summary>
    /// How the store is opened (see <see cref="StoreOptions"/>); its defaults unless configured. Setting it in code
    /// replaces the whole object, including what configuration bound into it before.
    /// <see cref="StoreOptions.ActorSystem"/> is taken from the host when Akka.Hosting's <c>WithStellarStore()</c> is used.
    /// <see cref="StoreOptions.LoggerFactory"/> and <see cref="StoreOptions.MeterFactory"/> are the host's
    /// <c>ILoggerFactory</c> and <c>IMeterFactory</c> unless set here.
    /// </summary>
    public StoreOptions Store { get; set; } = new();

    /// <summary>Why binding the configuration failed (a value that does not convert), reported by validation at start.</summary>
    internal string? BindingError { get; set; }

    /// <summary>How the store is opened: the seam through which tests open it on a fault-injecting storage.</summary>
    internal Func<string, StoreOptions, CancellationToken, Task<StellarStore>> Open { get; set; } = StellarStore.OpenAsync;
}
