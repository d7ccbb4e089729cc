using Akka.Actor;
using Akka.Configuration;
using MessagePack;
using MessagePack.Resolvers;
using Stellar.Store.Persistence.Records;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// The stores the plugins of this process have open, one per actor system and directory: the journal, the snapshot
/// store and the read journal of one system that name the same path share one store (and so one lock on the
/// directory), opened by the first and closed when the last lets go.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal static class SharedStores
{
    private static readonly object Gate = new();
    private static readonly Dictionary<(ActorSystem System, string Path), Entry> Open = [];

    /// <summary>Takes a share of the store <paramref name="settings"/> name in <paramref name="system"/>, opening it if no plugin has.</summary>
    /// <exception cref="ConfigurationException">The store is open with other durability, compression or encryption settings.</exception>
    public static async Task<StoreLease> AcquireAsync(ActorSystem system, PluginSettings settings, string pluginId)
    {
        Entry entry;
        lock (Gate)
        {
            if (Open.TryGetValue((system, settings.Path), out var existing))
            {
                if (!existing.Settings.OpensSameStoreAs(settings))
                {
                    throw new ConfigurationException(
                        $"{pluginId} names the store at '{settings.Path}', which {existing.PluginId} opened with other durability, compression or encryption settings; give both the same settings or different paths.");
                }

                existing.References++;
                entry = existing;
            }
            else
            {
                entry = new Entry(settings, pluginId, OpenAsync(system, settings));
                Open.Add((system, settings.Path), entry);
            }
        }

        try
        {
            var store = await entry.Opening.ConfigureAwait(false);
            return new StoreLease(store, () => ReleaseAsync(system, settings.Path, entry));
        }
        catch
        {
            await ReleaseAsync(system, settings.Path, entry).ConfigureAwait(false);
            throw;
        }
    }

    private static async Task ReleaseAsync(ActorSystem system, string path, Entry entry)
    {
        lock (Gate)
        {
            if (--entry.References > 0)
            {
                return;
            }

            Open.Remove((system, path));
        }

        if (entry.Opening.IsCompletedSuccessfully)
        {
            await entry.Opening.Result.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static async Task<SharedStore> OpenAsync(ActorSystem system, PluginSettings settings)
    {
        var options = new StoreOptions
        {
            Durability = settings.Durability,
            Compression = settings.Compression,
            EncryptionKey = settings.EncryptionKey,
            EncryptionPassphrase = settings.EncryptionPassphrase,
            ActorSystem = system,
            Serializer = MessagePackSerializerOptions.Standard.WithResolver(
                CompositeResolver.Create([new JournalRecordFormatter(), new SnapshotRecordFormatter()], [StandardResolver.Instance])),
        };
        var store = await StellarStore.OpenAsync(settings.Path, options).ConfigureAwait(false);
        return new SharedStore(store);
    }

    private sealed class Entry(PluginSettings settings, string pluginId, Task<SharedStore> opening)
    {
        public PluginSettings Settings { get; } = settings;

        public string PluginId { get; } = pluginId;

        public Task<SharedStore> Opening { get; } = opening;

        /// <summary>Leases given and not yet released (under <see cref="Gate"/>).</summary>
        public int References { get; set; } = 1;
    }
}
