using Stellar.Store.Format;
using Stellar.Store.Inspection;
using Stellar.Store.Tool.Raw;

namespace Stellar.Store.Tool;

/// <summary>
/// How the verbs reach a store: read-only through the inspector (info, verify, export, salvage's source), or opened
/// by the engine (import, compact, salvage's new store) with the collections' recorded types stood in for by raw
/// MessagePack. Turns the store's exceptions into <see cref="ToolException"/>s that say what to do.
/// </summary>
internal static class StoreAccess
{
    /// <summary>Opens <paramref name="directory"/> read-only; see <see cref="StoreInspector"/>.</summary>
    public static StoreInspector Inspect(DirectoryInfo directory, byte[]? key, string? passphrase)
    {
        RequireStore(directory);
        return Translate(() => StoreInspector.Open(directory.FullName, key, passphrase));
    }

    /// <summary>
    /// Opens the store at <paramref name="directory"/> with the engine, keeping its compression, with no background
    /// compaction or expiry removal, so that the tool writes only what its verb asks for.
    /// </summary>
    public static async Task<StellarStore> OpenAsync(string directory, byte[]? key, string? passphrase, Compression compression, CancellationToken cancellationToken)
    {
        var options = new StoreOptions
        {
            EncryptionKey = key,
            EncryptionPassphrase = passphrase,
            Compression = compression,
            CompactionThreshold = 0,
            ExpirySweepInterval = Timeout.InfiniteTimeSpan,
        };
        try
        {
            return await StellarStore.OpenAsync(directory, options, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (Translated(e) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>Opens the store at <paramref name="directory"/> as <see cref="OpenAsync"/> does, keeping the compression its manifest records.</summary>
    public static Task<StellarStore> OpenKeepingCompressionAsync(DirectoryInfo directory, byte[]? key, string? passphrase, CancellationToken cancellationToken) =>
        OpenAsync(directory.FullName, key, passphrase, CompressionOf(directory, key, passphrase), cancellationToken);

    /// <summary>The compression a store records for new blocks, read from its manifest without opening it.</summary>
    public static Compression CompressionOf(DirectoryInfo directory, byte[]? key, string? passphrase)
    {
        using var inspector = Inspect(directory, key, passphrase);
        return (Compression)inspector.Compression;
    }

    /// <summary>Opens collection <paramref name="name"/> as its manifest records it, through raw MessagePack stand-ins.</summary>
    public static Collection<RawKey, RawValue> RawCollection(StellarStore store, string name, string keyType, string valueType)
    {
        try
        {
            return store.GetCollectionRecordedAs<RawKey, RawValue>(name, RawValue.KeyOf, keyType, valueType);
        }
        catch (Exception e) when (Translated(e) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>The store's exceptions as the messages and exit codes the tool reports; null for anything else.</summary>
    public static ToolException? Translated(Exception e) => e switch
    {
        ToolException tool => tool,
        WrongKeyException => new(ExitCodes.CannotOpen, $"Wrong key or passphrase: {e.Message} Give the store's own with --key-file, --key-env, --passphrase-file, --passphrase-env or --ask-passphrase.", e),
        StoreLockedException => new(ExitCodes.CannotOpen, $"{e.Message} Stop the program that has it open (a game server) and run the tool again.", e),
        IncompatibleFormatException => new(ExitCodes.CannotOpen, $"{e.Message} Use a newer build of the tool.", e),
        CorruptBlockException => new(ExitCodes.Damaged, $"{e.Message}. Run 'stellar verify' for every bad block and 'stellar salvage' to copy what is intact into a new store.", e),
        CorruptStoreException => new(ExitCodes.Damaged, $"{e.Message}.", e),
        _ => null,
    };

    private static T Translate<T>(Func<T> open)
    {
        try
        {
            return open();
        }
        catch (Exception e) when (Translated(e) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>Refuses a directory to create a store in that names a file (exit code 2): the open would fail on it.</summary>
    public static void RequireNotAFile(DirectoryInfo directory)
    {
        if (File.Exists(directory.FullName))
        {
            throw new ToolException(ExitCodes.BadInput, $"'{directory.FullName}' is a file, not a store's directory. Give a directory that does not exist or is a store.");
        }
    }

    /// <summary>
    /// Refuses a directory to make a new store in that is <paramref name="store"/>'s directory or inside it (exit code
    /// 2): the verbs that make a new store from another promise to leave that one's directory as it was.
    /// </summary>
    public static void RequireOutside(DirectoryInfo target, string store, string whose)
    {
        var comparison = OperatingSystem.IsWindows() ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal;
        var inside = Path.TrimEndingDirectorySeparator(Path.GetFullPath(target.FullName));
        var root = Path.TrimEndingDirectorySeparator(Path.GetFullPath(store));
        if (string.Equals(inside, root, comparison) || inside.StartsWith(root + Path.DirectorySeparatorChar, comparison))
        {
            throw new ToolException(ExitCodes.BadInput, $"The new store must be another directory than {whose} ('{root}'), and not inside it.");
        }
    }

    /// <summary>
    /// Refuses a directory that is missing (a wrong path: exit code 2) or holds no store at all (neither a manifest nor a
    /// shard: exit code 3). One with shards but no manifest is a damaged store, which the inspector reports as such.
    /// </summary>
    public static void RequireStore(DirectoryInfo directory)
    {
        if (!directory.Exists)
        {
            throw new ToolException(ExitCodes.BadInput, $"There is no directory '{directory.FullName}'.");
        }

        if (!File.Exists(Path.Combine(directory.FullName, StoreFileNames.Manifest))
            && !directory.EnumerateFiles("*" + StoreFileNames.ShardExtension).Any())
        {
            throw new ToolException(ExitCodes.CannotOpen, $"'{directory.FullName}' is not a store's directory: it holds no {StoreFileNames.Manifest} and no shard. Check the path.");
        }
    }
}
