using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence;
using Akka.Persistence.Snapshot;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence;

/// <summary>
/// An Akka.Persistence snapshot store on a Stellar.Store store (plugin id <c>akka.persistence.snapshot-store.stellar</c>;
/// see docs/persistence.md). A snapshot is one record under (persistence id, sequence number); saving at a sequence
/// number that has one replaces it; a delete by criteria is one atomic batch.
/// </summary>
/// <remarks>
/// <para>What is durable when a save is acknowledged (<c>SaveSnapshotSuccess</c>): the store's <see cref="Durability"/>,
/// from the plugin's <c>durability</c> setting, as for the journal. Snapshots larger than the store's
/// <c>LargeValueThreshold</c> are not kept in memory; a load reads them from disk. After a storage fault the store is
/// reopened for the calls that follow, as for the journal (see docs/persistence.md).</para>
/// <para>Thread safety: an actor; Akka.Persistence calls it.</para>
/// </remarks>
public sealed class StellarSnapshotStore : SnapshotStore
{
    private readonly PluginSettings _settings;

    /// <summary>
    /// The actor system, kept for the continuations of its asynchronous calls: they run after an await, off the actor's
    /// turn, where <c>Context</c> is not available (the first loads after a restart wait for the store to open).
    /// </summary>
    private readonly ActorSystem _system;
    private Task<StoreLease>? _lease;

    /// <summary>Made by Akka.Persistence with the plugin's configuration block.</summary>
    /// <exception cref="ConfigurationException">A setting is missing or wrong; the message names it.</exception>
    public StellarSnapshotStore(Config config)
    {
        _system = Context.System;
        StellarPersistence.InjectDefaults(_system);
        ArgumentNullException.ThrowIfNull(config);
        _settings = PluginSettings.From(
            config.WithFallback(StellarPersistence.DefaultConfiguration().GetConfig(StellarPersistence.SnapshotStorePluginId)),
            StellarPersistence.SnapshotStorePluginId);
    }

    /// <inheritdoc />
    protected override void PreStart()
    {
        base.PreStart();
        _lease = SharedStores.AcquireAsync(Context.System, _settings, StellarPersistence.SnapshotStorePluginId);
    }

    /// <inheritdoc />
    protected override void PostStop()
    {
        base.PostStop();
        _lease?.ContinueWith(t => t.IsCompletedSuccessfully ? t.Result.DisposeAsync().AsTask() : Task.CompletedTask, TaskScheduler.Default);
    }

    /// <inheritdoc />
    protected override async Task<SelectedSnapshot?> LoadAsync(string persistenceId, SnapshotSelectionCriteria criteria, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(criteria);
        var selected = await UseLogAsync(log => Task.FromResult(log.Select(persistenceId, criteria))).ConfigureAwait(false);
        if (selected.Count == 0)
        {
            return null;
        }

        var latest = selected[^1];
        var snapshot = AkkaPayloads.Deserialize(_system, latest.Payload, latest.SerializerId, latest.SerializerManifest);
        return new SelectedSnapshot(new SnapshotMetadata(latest.PersistenceId, latest.SequenceNr, new DateTime(latest.Timestamp, DateTimeKind.Utc)), snapshot);
    }

    /// <inheritdoc />
    protected override async Task SaveAsync(SnapshotMetadata metadata, object snapshot, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        ArgumentNullException.ThrowIfNull(snapshot);
        var (bytes, serializerId, manifest) = AkkaPayloads.Serialize(_system, snapshot);
        var record = new SnapshotRecord
        {
            PersistenceId = metadata.PersistenceId,
            SequenceNr = metadata.SequenceNr,
            Timestamp = metadata.Timestamp.Ticks,
            SerializerId = serializerId,
            SerializerManifest = manifest,
            Payload = bytes,
        };
        await UseLogAsync(log => log.SaveAsync(record)).ConfigureAwait(false);
    }

    /// <inheritdoc />
    protected override async Task DeleteAsync(SnapshotMetadata metadata, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        await UseLogAsync(log => log.DeleteAsync(metadata.PersistenceId, metadata.SequenceNr)).ConfigureAwait(false);
    }

    /// <inheritdoc />
    protected override async Task DeleteAsync(string persistenceId, SnapshotSelectionCriteria criteria, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(criteria);
        await UseLogAsync(log => log.DeleteAsync(persistenceId, criteria)).ConfigureAwait(false);
    }

    /// <summary>Runs <paramref name="use"/> on the snapshots of the store as it is open now; a fault reopens the store for the calls after (see <see cref="StoreSlot"/>).</summary>
    private async Task UseLogAsync(Func<SnapshotLog, Task> use) => await UseLogAsync(async log =>
    {
        await use(log).ConfigureAwait(false);
        return true;
    }).ConfigureAwait(false);

    /// <inheritdoc cref="UseLogAsync(Func{SnapshotLog, Task})"/>
    private async Task<T> UseLogAsync<T>(Func<SnapshotLog, Task<T>> use)
    {
        var lease = await (_lease ?? throw new InvalidOperationException("The snapshot store has not started.")).ConfigureAwait(false);
        var collection = _settings.Collection;
        return await lease.UseAsync(async store => await use(await store.SnapshotsAsync(collection).ConfigureAwait(false)).ConfigureAwait(false)).ConfigureAwait(false);
    }
}
