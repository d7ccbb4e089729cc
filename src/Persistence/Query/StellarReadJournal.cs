using System.Runtime.CompilerServices;
using Akka;
using Akka.Actor;
using Akka.Configuration;
using Akka.Persistence.Query;
using Akka.Streams;
using Akka.Streams.Dsl;
using Stellar.Store.Persistence.Records;
using Stellar.Store.Persistence.Storage;

namespace Stellar.Store.Persistence.Query;

/// <summary>
/// Akka.Persistence.Query over the events of a <see cref="StellarJournal"/> (the journal its <c>write-plugin</c>
/// setting names, by default <c>akka.persistence.journal.stellar</c>): by persistence id, the persistence ids, and by
/// tag (tags from a <c>Tagged</c> wrapper that an event adapter gave the event).
/// </summary>
/// <remarks>
/// <para>The current queries (<c>Current...</c>) deliver what was committed when the stream started and complete. The
/// live ones deliver that, then follow the journal's collection change feed: each event once a reader could see it,
/// in commit order, with no polling. The offset of <see cref="EventsByTag"/> is a <see cref="Sequence"/>: the event's
/// ordering, strictly increasing in commit order across the journal, so resuming after an offset misses nothing and
/// repeats nothing. Deleted events are not delivered, also by a live query whose consumer had not taken them yet when
/// the delete came. An event is delivered once readers of the store can see it: stored as durably as the journal's
/// <c>durability</c> setting makes an acknowledged write, and possibly a moment before the journal acknowledges it.</para>
/// <para>Events are deserialized with Akka's serialization, as the journal replays them; read event adapters are not
/// applied. The store is opened (or shared with the journal, when it has it open) at the first query, and released when
/// the actor system terminates. A query, waiting for new events or reading stored ones, reads on from where it was
/// when the plugins reopen the store after a storage fault (see docs/persistence.md): a live one delivers every event
/// once, in order, and a current one completes at the end it had when it started.</para>
/// <para>Thread safety: every member may be called from any thread; each materialized stream is independent.</para>
/// </remarks>
public sealed class StellarReadJournal : IReadJournal,
    IEventsByPersistenceIdQuery, ICurrentEventsByPersistenceIdQuery,
    IPersistenceIdsQuery, ICurrentPersistenceIdsQuery,
    IEventsByTagQuery, ICurrentEventsByTagQuery
{
    /// <summary>The read journal's plugin id: <c>ReadJournalFor&lt;StellarReadJournal&gt;(StellarReadJournal.Identifier)</c>.</summary>
    public const string Identifier = StellarPersistence.ReadJournalPluginId;

    private readonly ExtendedActorSystem _system;
    private readonly PluginSettings _settings;
    private readonly int _bufferSize;
    private readonly Lazy<Task<StoreLease>> _lease;

    /// <summary>Made by <see cref="StellarReadJournalProvider"/> with the read journal's configuration block.</summary>
    /// <exception cref="ConfigurationException">The journal it names is not configured, or its settings are wrong.</exception>
    public StellarReadJournal(ExtendedActorSystem system, Config config)
    {
        ArgumentNullException.ThrowIfNull(system);
        ArgumentNullException.ThrowIfNull(config);
        StellarPersistence.InjectDefaults(system);
        var defaults = StellarPersistence.DefaultConfiguration();
        config = config.WithFallback(defaults.GetConfig(Identifier));
        var writePlugin = config.GetString("write-plugin", StellarPersistence.JournalPluginId);
        var journalConfig = system.Settings.Config.GetConfig(writePlugin)
            ?? throw new ConfigurationException($"{Identifier}.write-plugin names '{writePlugin}', which is not configured.");
        _system = system;
        _settings = PluginSettings.From(journalConfig.WithFallback(defaults.GetConfig(StellarPersistence.JournalPluginId)), writePlugin);
        _bufferSize = Math.Max(1, config.GetInt("max-buffer-size", 100));
        _lease = new Lazy<Task<StoreLease>>(AcquireAsync);
    }

    /// <inheritdoc />
    public Source<EventEnvelope, NotUsed> EventsByPersistenceId(string persistenceId, long fromSequenceNr, long toSequenceNr) =>
        Buffered(Source.From(() => ByPersistenceIdAsync(persistenceId, fromSequenceNr, toSequenceNr, live: true)));

    /// <inheritdoc />
    public Source<EventEnvelope, NotUsed> CurrentEventsByPersistenceId(string persistenceId, long fromSequenceNr, long toSequenceNr) =>
        Buffered(Source.From(() => ByPersistenceIdAsync(persistenceId, fromSequenceNr, toSequenceNr, live: false)));

    /// <inheritdoc />
    public Source<string, NotUsed> PersistenceIds() => Buffered(Source.From(() => PersistenceIdsAsync(live: true)));

    /// <inheritdoc />
    public Source<string, NotUsed> CurrentPersistenceIds() => Buffered(Source.From(() => PersistenceIdsAsync(live: false)));

    /// <inheritdoc />
    public Source<EventEnvelope, NotUsed> EventsByTag(string tag, Offset offset) =>
        Buffered(Source.From(() => ByTagAsync(tag, After(offset), live: true)));

    /// <inheritdoc />
    public Source<EventEnvelope, NotUsed> CurrentEventsByTag(string tag, Offset offset) =>
        Buffered(Source.From(() => ByTagAsync(tag, After(offset), live: false)));

    /// <summary>
    /// Reads up to <c>max-buffer-size</c> elements ahead of demand, so that a query that has no more to give completes
    /// when its last element is delivered rather than at the next request.
    /// </summary>
    private Source<T, NotUsed> Buffered<T>(Source<T, NotUsed> source) => source.Buffer(_bufferSize, OverflowStrategy.Backpressure);

    private static long After(Offset offset) => offset switch
    {
        null or NoOffset => 0,
        Sequence sequence => sequence.Value,
        _ => throw new ArgumentException($"The Stellar read journal takes a Sequence offset or NoOffset, not {offset.GetType().Name}.", nameof(offset)),
    };

    private async IAsyncEnumerable<EventEnvelope> ByPersistenceIdAsync(string persistenceId, long from, long to, bool live, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var next = Math.Max(from, 1);
        long? bound = null;
        EventLog? closed = null;
        while (true)
        {
            var log = await LogAsync(closed).ConfigureAwait(false);
            await using var tail = live ? EventTail.Start(log, cancellationToken) : null;
            var end = live ? to : (bound ??= Math.Min(to, log.HighestSequenceNr(persistenceId)));
            using (var records = log.Read(persistenceId, next, end).GetEnumerator())
            {
                while (Next(records, log, ref closed) is { } record)
                {
                    yield return Envelope(record);
                    next = record.SequenceNr + 1;
                }
            }

            if (ReferenceEquals(closed, log))
            {
                continue;
            }

            if (tail is null)
            {
                yield break;
            }

            while (next <= to && await tail.NextAsync().ConfigureAwait(false) is { } record)
            {
                if (string.Equals(record.PersistenceId, persistenceId, StringComparison.Ordinal) && record.SequenceNr >= next && record.SequenceNr <= to)
                {
                    // The feed still holds the writes of events a delete removed since: those are passed over.
                    if (Deleted(log, record, ref closed) is not { } deleted)
                    {
                        break;
                    }

                    if (!deleted)
                    {
                        yield return Envelope(record);
                    }

                    next = record.SequenceNr + 1;
                }
            }

            if (next > to)
            {
                yield break;
            }
        }
    }

    private async IAsyncEnumerable<string> PersistenceIdsAsync(bool live, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        EventLog? closed = null;
        while (true)
        {
            var log = await LogAsync(closed).ConfigureAwait(false);
            await using var tail = live ? EventTail.Start(log, cancellationToken) : null;
            if (PersistenceIds(log, ref closed) is not { } ids)
            {
                continue;
            }

            foreach (var id in ids)
            {
                if (seen.Add(id))
                {
                    yield return id;
                }
            }

            if (tail is null)
            {
                yield break;
            }

            while (await tail.NextAsync().ConfigureAwait(false) is { } record)
            {
                if (seen.Add(record.PersistenceId))
                {
                    yield return record.PersistenceId;
                }
            }
        }
    }

    private async IAsyncEnumerable<EventEnvelope> ByTagAsync(string tag, long after, bool live, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var last = after;
        long? bound = null;
        EventLog? closed = null;
        while (true)
        {
            var log = await LogAsync(closed).ConfigureAwait(false);
            await using var tail = live ? EventTail.Start(log, cancellationToken) : null;
            var upTo = live ? log.LastOrdering : (bound ??= log.LastOrdering);
            while (ReadTagged(log, tag, last, upTo, ref closed) is { } page)
            {
                foreach (var record in page.Events)
                {
                    yield return Envelope(record);
                }

                last = Math.Max(last, page.ScannedTo);
                if (!page.More)
                {
                    break;
                }
            }

            if (ReferenceEquals(closed, log))
            {
                continue;
            }

            if (tail is null)
            {
                yield break;
            }

            while (await tail.NextAsync().ConfigureAwait(false) is { } record)
            {
                if (record.Ordering > last && record.Tags.Contains(tag, StringComparer.Ordinal))
                {
                    // As by persistence id: an event a delete removed since its write is passed over.
                    if (Deleted(log, record, ref closed) is not { } deleted)
                    {
                        break;
                    }

                    if (!deleted)
                    {
                        yield return Envelope(record);
                    }

                    last = record.Ordering;
                }
            }
        }
    }

    private EventEnvelope Envelope(JournalRecord record)
    {
        var payload = AkkaPayloads.Deserialize(_system, record.Payload, record.SerializerId, record.SerializerManifest);
        return new EventEnvelope(new Sequence(record.Ordering), record.PersistenceId, record.SequenceNr, payload, record.Timestamp, [.. record.Tags]);
    }

    /// <summary>
    /// The next of <paramref name="records"/>, read from <paramref name="log"/>; null at their end, or when the store
    /// closed under the read (<paramref name="closed"/> is then <paramref name="log"/>, and the query reads on from the
    /// store as it is open now, as a live query's tail does).
    /// </summary>
    private static JournalRecord? Next(IEnumerator<JournalRecord> records, EventLog log, ref EventLog? closed)
    {
        try
        {
            return records.MoveNext() ? records.Current : null;
        }
        catch (ObjectDisposedException)
        {
            closed = log;
            return null;
        }
    }

    /// <summary>The ids of <see cref="EventLog.PersistenceIds"/>; null when the store closed under the read, as for <see cref="Next"/>.</summary>
    private static IReadOnlyList<string>? PersistenceIds(EventLog log, ref EventLog? closed)
    {
        try
        {
            return log.PersistenceIds;
        }
        catch (ObjectDisposedException)
        {
            closed = log;
            return null;
        }
    }

    /// <summary>
    /// Whether a delete of its persistence id hides <paramref name="record"/>; null when the store closed under the
    /// lookup, as for <see cref="Next"/> (the query then reads the event again from the reopened store).
    /// </summary>
    private static bool? Deleted(EventLog log, JournalRecord record, ref EventLog? closed)
    {
        try
        {
            return record.SequenceNr <= log.DeletedTo(record.PersistenceId);
        }
        catch (ObjectDisposedException)
        {
            closed = log;
            return null;
        }
    }

    /// <summary>A page of <see cref="EventLog.ReadTagged"/>; null when the store closed under the read, as for <see cref="Next"/>.</summary>
    private TaggedPage? ReadTagged(EventLog log, string tag, long after, long upTo, ref EventLog? closed)
    {
        try
        {
            return log.ReadTagged(tag, after, upTo, _bufferSize);
        }
        catch (ObjectDisposedException)
        {
            closed = log;
            return null;
        }
    }

    /// <summary>
    /// The events of the store as it is open now (reopened after a fault, see <see cref="StoreSlot"/>). A query whose
    /// store closed under it (<paramref name="closed"/>) fails when that store is still the one open: it was closed for
    /// good (the actor system's shutdown), not reopened.
    /// </summary>
    private async Task<EventLog> LogAsync(EventLog? closed = null)
    {
        var lease = await _lease.Value.ConfigureAwait(false);
        var store = await lease.StoreAsync().ConfigureAwait(false);
        var log = await store.EventsAsync(_settings.Collection).ConfigureAwait(false);
        ObjectDisposedException.ThrowIf(ReferenceEquals(log, closed), store.Store);
        return log;
    }

    private async Task<StoreLease> AcquireAsync()
    {
        var lease = await SharedStores.AcquireAsync(_system, _settings, Identifier).ConfigureAwait(false);
        _system.RegisterOnTermination(() => lease.DisposeAsync().AsTask().GetAwaiter().GetResult());
        return lease;
    }
}
