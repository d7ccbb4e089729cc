using System.Collections.Immutable;
using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence;
using Akka.Persistence.Journal;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence;

/// <summary>
/// An Akka.Persistence journal on a Stellar.Store store (plugin id <c>akka.persistence.journal.stellar</c>; see
/// docs/persistence.md). Each <c>AtomicWrite</c> is one atomic batch of the store's collection, all or none; the
/// batches of every persistent actor are submitted at once to the collection's writer, which commits them in shared
/// groups (one write to the OS, or one fsync, per group).
/// </summary>
/// <remarks>
/// <para>What is durable when a write is acknowledged (<c>WriteMessageSuccess</c>, the actor's <c>Persist</c> handler
/// runs): the store's <see cref="Durability"/>, from the plugin's <c>durability</c> setting. <c>write-through</c>
/// survives a crash of the process, <c>fsync</c> a crash of the machine, <c>buffered</c> nothing until the store is
/// flushed or closed. An acknowledged event is visible to replay and to the read journal.</para>
/// <para>An event Akka cannot serialize, or a batch the store refuses before storing anything (larger than one
/// block, an event already stored at that sequence number), is rejected (<c>WriteMessageRejected</c>): nothing of that
/// <c>AtomicWrite</c> is stored, and the actor goes on. A write whose outcome is uncertain (an I/O error, the store
/// closing) fails the whole call (<c>WriteMessageFailure</c>), and is never undone; after a storage fault the store is
/// reopened for the calls that follow, as a restart would find it, and a replay under way reads on from the reopened
/// store (see docs/persistence.md).</para>
/// <para>Thread safety: an actor; Akka.Persistence calls it.</para>
/// </remarks>
public sealed class StellarJournal : AsyncWriteJournal
{
    private readonly PluginSettings _settings;
    private Task<StoreLease>? _lease;

    /// <summary>Made by Akka.Persistence with the plugin's configuration block.</summary>
    /// <exception cref="ConfigurationException">A setting is missing or wrong; the message names it.</exception>
    public StellarJournal(Config config)
    {
        StellarPersistence.InjectDefaults(Context.System);
        ArgumentNullException.ThrowIfNull(config);
        _settings = PluginSettings.From(
            config.WithFallback(StellarPersistence.DefaultConfiguration().GetConfig(StellarPersistence.JournalPluginId)),
            StellarPersistence.JournalPluginId);
    }

    /// <inheritdoc />
    protected override void PreStart()
    {
        base.PreStart();
        _lease = SharedStores.AcquireAsync(Context.System, _settings, StellarPersistence.JournalPluginId);
    }

    /// <inheritdoc />
    protected override void PostStop()
    {
        base.PostStop();
        _lease?.ContinueWith(t => t.IsCompletedSuccessfully ? t.Result.DisposeAsync().AsTask() : Task.CompletedTask, TaskScheduler.Default);
    }

    /// <inheritdoc />
    public override async Task ReplayMessagesAsync(IActorContext context, string persistenceId, long fromSequenceNr, long toSequenceNr, long max, Action<IPersistentRepresentation> recoveryCallback)
    {
        ArgumentNullException.ThrowIfNull(recoveryCallback);
        var system = context.System;
        var next = fromSequenceNr;
        var left = max;
        void Deliver(JournalRecord record)
        {
            recoveryCallback(ToRepresentation(system, record));
            next = record.SequenceNr + 1;
            left--;
        }

        // A replay whose store was reopened under it (after another actor's write faulted it) reads on from the reopened
        // store where it was, which holds what a restart would find: the events the actor has still to recover did not
        // fault the store. One whose store was closed for good (still the one open) fails.
        EventLog? closed = null;
        while (true)
        {
            var done = await UseLogAsync(log => Task.Run(() =>
            {
                ObjectDisposedException.ThrowIf(ReferenceEquals(log, closed), log);
                try
                {
                    // Off the journal's own turn: a long replay must not hold up other actors' writes.
                    log.Replay(persistenceId, next, toSequenceNr, left, Deliver);
                    return true;
                }
                catch (ObjectDisposedException)
                {
                    closed = log;
                    return false;
                }
            })).ConfigureAwait(false);
            if (done)
            {
                return;
            }
        }
    }

    /// <inheritdoc />
    public override Task<long> ReadHighestSequenceNrAsync(string persistenceId, long fromSequenceNr, CancellationToken cancellationToken) =>
        UseLogAsync(log => Task.FromResult(log.HighestSequenceNr(persistenceId)));

    /// <inheritdoc />
    protected override async Task<IImmutableList<Exception?>> WriteMessagesAsync(IEnumerable<AtomicWrite> messages, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(messages);
        var system = Context.System;
        var drafts = messages.Select(write => Draft(system, write)).ToList();
        var outcomes = await UseLogAsync(log => log.WriteAsync(drafts)).ConfigureAwait(false);
        return outcomes.Any(o => o is not null) ? outcomes.ToImmutableList() : null!;
    }

    /// <inheritdoc />
    protected override Task DeleteMessagesToAsync(string persistenceId, long toSequenceNr, CancellationToken cancellationToken) =>
        UseLogAsync(log => log.DeleteToAsync(persistenceId, toSequenceNr));

    /// <summary>An event as Akka.Persistence replays it: the payload deserialized, the sender not kept.</summary>
    internal static Persistent ToRepresentation(ActorSystem system, JournalRecord record)
    {
        var payload = AkkaPayloads.Deserialize(system, record.Payload, record.SerializerId, record.SerializerManifest);
        return new Persistent(payload, record.SequenceNr, record.PersistenceId, record.Manifest, false, ActorRefs.NoSender, record.WriterGuid, record.Timestamp);
    }

    private static AtomicDraft Draft(ActorSystem system, AtomicWrite write)
    {
        var events = (IImmutableList<IPersistentRepresentation>)write.Payload;
        var records = new JournalRecord[events.Count];
        try
        {
            for (var i = 0; i < events.Count; i++)
            {
                records[i] = ToRecord(system, events[i]);
            }
        }
        catch (Exception e)
        {
            return new AtomicDraft(null, e);
        }

        return new AtomicDraft(records, null);
    }

    private static JournalRecord ToRecord(ActorSystem system, IPersistentRepresentation persistent)
    {
        var payload = persistent.Payload;
        IReadOnlyList<string> tags = [];
        if (payload is Tagged tagged)
        {
            payload = tagged.Payload;
            tags = tagged.Tags.Count == 0 ? [] : [.. tagged.Tags];
        }

        var (bytes, serializerId, manifest) = AkkaPayloads.Serialize(system, payload);
        return new JournalRecord
        {
            PersistenceId = persistent.PersistenceId,
            SequenceNr = persistent.SequenceNr,
            Timestamp = persistent.Timestamp > 0 ? persistent.Timestamp : DateTime.UtcNow.Ticks,
            WriterGuid = persistent.WriterGuid ?? string.Empty,
            Manifest = persistent.Manifest ?? string.Empty,
            SerializerId = serializerId,
            SerializerManifest = manifest,
            Payload = bytes,
            Tags = tags,
        };
    }

    /// <summary>Runs <paramref name="use"/> on the events of the store as it is open now; a fault reopens the store for the calls after (see <see cref="StoreSlot"/>).</summary>
    private async Task UseLogAsync(Func<EventLog, Task> use) => await UseLogAsync(async log =>
    {
        await use(log).ConfigureAwait(false);
        return true;
    }).ConfigureAwait(false);

    /// <inheritdoc cref="UseLogAsync(Func{EventLog, Task})"/>
    private async Task<T> UseLogAsync<T>(Func<EventLog, Task<T>> use)
    {
        var lease = await (_lease ?? throw new InvalidOperationException("The journal has not started.")).ConfigureAwait(false);
        var collection = _settings.Collection;
        return await lease.UseAsync(async store => await use(await store.EventsAsync(collection).ConfigureAwait(false)).ConfigureAwait(false)).ConfigureAwait(false);
    }
}
