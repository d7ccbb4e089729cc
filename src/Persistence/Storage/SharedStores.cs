using System.Collections.Concurrent;
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
    private static readonly Dictionary<(ActorSystem System, string Path), StoreSlot> Open = [];

    /// <summary>
    /// Takes a share of the store <paramref name="settings"/> name in <paramref name="system"/>, opening it if no plugin
    /// has. The lease comes before the open ends: an open that fails fails the calls that wait for it, and the next call
    /// tries again (see <see cref="StoreSlot"/>).
    /// </summary>
    /// <returns>The lease; a task faulted with <see cref="ConfigurationException"/> when the store is open with other durability, compression or encryption settings.</returns>
    public static Task<StoreLease> AcquireAsync(ActorSystem system, PluginSettings settings, string pluginId)
    {
        lock (Gate)
        {
            if (Open.TryGetValue((system, settings.Path), out var slot))
            {
                if (!slot.Settings.OpensSameStoreAs(settings))
                {
                    return Task.FromException<StoreLease>(new ConfigurationException(
                        $"{pluginId} names the store at '{settings.Path}', which {slot.PluginId} opened with other durability, compression or encryption settings; give both the same settings or different paths."));
                }

                slot.References++;
            }
            else
            {
                // The journal's counters outlive each open of the store: a reopen after a fault hands out no number twice.
                var counters = new ConcurrentDictionary<string, EventCounters>(StringComparer.Ordinal);
                slot = new StoreSlot(settings, pluginId, () => OpenAsync(system, settings, counters), system.Log);
                Open.Add((system, settings.Path), slot);
            }

            return Task.FromResult(new StoreLease(slot, () => ReleaseAsync(system, settings.Path, slot)));
        }
    }

    private static Task ReleaseAsync(ActorSystem system, string path, StoreSlot slot)
    {
        lock (Gate)
        {
            if (--slot.References > 0)
            {
                return Task.CompletedTask;
            }

            Open.Remove((system, path));
        }

        return slot.CloseAsync();
    }

    private static async Task<SharedStore> OpenAsync(ActorSystem system, PluginSettings settings, ConcurrentDictionary<string, EventCounters> counters)
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
        return new SharedStore(store, counters);
    }
}
