using Stellar.Store.Persistence.Records;

namespace Stellar.Store.Persistence.Storage;

/// <summary>
/// The journal's events in one collection of a store, keyed by (persistence id, sequence number), with what the
/// journal and the read journal need beside them: the highest sequence number of each persistence id, the ordering
/// counter, and an index of events by (tag, ordering).
/// </summary>
/// <remarks>
/// <para><b>Ordering.</b> Each event gets a journal-wide ordering number. Numbers are handed out and the writes submitted
/// to the collection under one lock, and the collection's writer commits writes in the order they were submitted, so
/// orderings rise strictly in commit order: a reader that has seen ordering <c>n</c> has seen every committed event
/// below it. A rejected write leaves a gap; no number is handed out twice, also across deletes (the persistence id's
/// marker keeps the highest ordering its delete removed), restarts (the open scans for the highest) and reopens after a
/// fault (the logs of successive opens share one <see cref="EventCounters"/>, so numbers the process already handed out
/// stay taken even when the reopened store lost their events).</para>
/// <para><b>Deletes.</b> <see cref="DeleteToAsync"/> first upserts the marker at sequence number 0, whose
/// <see cref="JournalRecord.DeletedTo"/> hides every event up to it from replay and queries, in the same atomic batch
/// as the first deletes; the remaining deletes follow in batches. The delete is thus atomic for every reader, and a
/// crash between batches leaves only hidden events, which the next delete of that id removes.</para>
/// <para>Thread safety: every member may be called from any thread.</para>
/// </remarks>
internal sealed class EventLog
{
    /// <summary>Deletes per atomic batch after the first.</summary>
    private const int DeleteBatch = 4096;

    private readonly Collection<(string, long), JournalRecord> _events;
    private readonly CollectionIndex<(string, long), (string, long), JournalRecord> _byTag;
    private readonly EventCounters _counters;
    private readonly object _deleteGate = new();

    /// <summary>The last delete queued: deletes run one after another (under <see cref="_deleteGate"/>).</summary>
    private Task _lastDelete = Task.CompletedTask;

    private EventLog(Collection<(string, long), JournalRecord> events, CollectionIndex<(string, long), (string, long), JournalRecord> byTag, EventCounters counters)
    {
        _events = events;
        _byTag = byTag;
        _counters = counters;
    }

    /// <summary>The collection of events, for the change feed.</summary>
    public Collection<(string, long), JournalRecord> Events => _events;

    /// <summary>The last ordering handed out: every event committed so far has an ordering at most this.</summary>
    public long LastOrdering => _counters.LastOrdering;

    /// <summary>
    /// Every persistence id that has written an event, also those whose events were all deleted: every one with an event
    /// committed by the time it is read, also when the write has not completed yet.
    /// </summary>
    /// <remarks>
    /// An id is counted when its first write completes, after the commit: one submitted and not counted yet is taken when
    /// an event of it is stored, looked up after the counted ones were read (a write counted meanwhile was stored by then).
    /// </remarks>
    public IReadOnlyList<string> PersistenceIds
    {
        get
        {
            var ids = new HashSet<string>(_counters.PersistenceIds, StringComparer.Ordinal);
            foreach (var submitted in _counters.SubmittedIds)
            {
                if (!ids.Contains(submitted) && FirstStoredAbove(submitted, 0) != 0)
                {
                    ids.Add(submitted);
                }
            }

            var sorted = ids.ToList();
            sorted.Sort(StringComparer.Ordinal);
            return sorted;
        }
    }

    /// <summary>
    /// Loads the events of <paramref name="collection"/>, raises <paramref name="counters"/> (shared with the logs of the
    /// collection's earlier opens in this process, and only ever raised) to what the records hold, and declares the tag
    /// index last: a load that fails (a record that cannot be read, say) has then declared nothing, or an index whose
    /// failed build freed its name, so the next call loads it again from the start instead of meeting the index a
    /// failed scan left declared.
    /// </summary>
    public static async Task<EventLog> OpenAsync(StellarStore store, string collection, EventCounters counters)
    {
        var events = await store.GetCollectionAsync<(string, long), JournalRecord>(collection, r => (r.PersistenceId, r.SequenceNr)).ConfigureAwait(false);
        var ordering = 0L;
        using (var snapshot = events.Snapshot())
        {
            foreach (var record in snapshot.Query())
            {
                counters.Raise(record.PersistenceId, record.IsMarker ? record.DeletedTo : record.SequenceNr);
                ordering = Math.Max(ordering, record.Ordering);
            }
        }

        counters.RaiseOrdering(ordering);
        var byTag = events.IndexMany("by-tag", r => r.Tags.Count == 0 ? null : r.Tags.Select(t => (t, r.Ordering)));
        await byTag.Ready.ConfigureAwait(false);
        return new EventLog(events, byTag, counters);
    }

    /// <summary>The highest sequence number <paramref name="persistenceId"/> has written, deleted events included; 0 if none.</summary>
    public long HighestSequenceNr(string persistenceId) => _counters.HighestSequenceNr(persistenceId);

    /// <summary>Every event of <paramref name="persistenceId"/> up to this sequence number is deleted.</summary>
    public long DeletedTo(string persistenceId) => _events.TryGet((persistenceId, 0), out var marker) ? marker.DeletedTo : 0;

    /// <summary>
    /// Writes each entry of <paramref name="writes"/> that has records as one atomic batch, all submitted at once so
    /// that the collection's writer commits them in its groups with other callers' writes; completes with each
    /// entry's rejection (null: stored), an entry without records keeping its own.
    /// </summary>
    /// <exception cref="Exception">A write failed with an uncertain outcome (the store faulted or closed): the first such failure.</exception>
    public async Task<Exception?[]> WriteAsync(IReadOnlyList<AtomicDraft> writes)
    {
        var submitted = new Task?[writes.Count];
        lock (_counters.Gate)
        {
            for (var i = 0; i < writes.Count; i++)
            {
                if (writes[i].Records is { } drafts)
                {
                    var records = new JournalRecord[drafts.Count];
                    for (var j = 0; j < drafts.Count; j++)
                    {
                        records[j] = drafts[j] with { Ordering = _counters.NextOrdering() };
                    }

                    // An atomic write is one persistence id's events in rising order, as the raise after it assumes too.
                    if (records.Length > 0)
                    {
                        _counters.Submitted(records[^1].PersistenceId, records[^1].SequenceNr);
                    }

                    submitted[i] = _events.WriteAsync(b =>
                    {
                        foreach (var record in records)
                        {
                            b.Insert(record);
                        }
                    });
                }
            }
        }

        var outcomes = new Exception?[writes.Count];
        Exception? failure = null;
        for (var i = 0; i < writes.Count; i++)
        {
            if (submitted[i] is not { } task)
            {
                outcomes[i] = writes[i].Rejection;
                continue;
            }

            try
            {
                await task.ConfigureAwait(false);
                var last = writes[i].Records![^1];
                _counters.Raise(last.PersistenceId, last.SequenceNr);
            }
            catch (Exception e) when (IsRejection(e))
            {
                outcomes[i] = e;
            }
            catch (Exception e)
            {
                failure ??= e;
            }
        }

        if (failure is not null)
        {
            throw failure;
        }

        return outcomes;
    }

    /// <summary>
    /// Calls <paramref name="onEvent"/> for each event of <paramref name="persistenceId"/> from
    /// <paramref name="from"/> to <paramref name="to"/> (both included) in sequence order, at most
    /// <paramref name="max"/> of them; deleted events are skipped.
    /// </summary>
    public void Replay(string persistenceId, long from, long to, long max, Action<JournalRecord> onEvent)
    {
        var delivered = 0L;
        foreach (var record in Read(persistenceId, from, Math.Min(to, HighestSequenceNr(persistenceId))))
        {
            if (delivered++ >= max)
            {
                return;
            }

            onEvent(record);
        }
    }

    /// <summary>
    /// The events of <paramref name="persistenceId"/> from <paramref name="from"/> to <paramref name="to"/>, read lazily,
    /// deleted ones skipped; while events are written, the read stops at the first one not committed yet, never past it.
    /// </summary>
    /// <remarks>
    /// A number missing below the highest is passed over only when the highest was read before the lookup that missed
    /// it: the highest is raised after the write's publish, so every number at most it was committed by then, and one
    /// missing is a gap (a write rejected, a delete) rather than an event on its way. Read after the lookup, the highest
    /// could count an event committed in between, and the read would step over it.
    /// A number missing at or above the highest is a gap too when a later number of the id is stored (an id's writes
    /// commit in the order they were submitted): the highest lags the commits, and a read that stopped there would leave
    /// behind events committed before it, which a live query whose change feed started before the read never gets.
    /// The read looks for one among the numbers submitted, stops when there is none, and otherwise looks the missing
    /// number up again, after the later one was seen.
    /// A number missing because a delete removed it sends the read past that delete's end, by the marker read after the
    /// lookup (the marker is committed with the first deletes, or before the later ones): a delete committed while the
    /// read goes on is seen whole, never its first batch alone with the events its later batches remove still given.
    /// </remarks>
    public IEnumerable<JournalRecord> Read(string persistenceId, long from, long to)
    {
        var start = Math.Max(Math.Max(from, 1), DeletedTo(persistenceId) + 1);
        var storedAbove = 0L;
        for (var sequenceNr = start; sequenceNr <= to; sequenceNr++)
        {
            var highest = HighestSequenceNr(persistenceId);
            if (_events.TryGet((persistenceId, sequenceNr), out var record))
            {
                yield return record;
            }
            else if (DeletedTo(persistenceId) is var deletedTo && deletedTo >= sequenceNr)
            {
                sequenceNr = deletedTo;
            }
            else if (sequenceNr >= highest && sequenceNr >= storedAbove)
            {
                storedAbove = FirstStoredAbove(persistenceId, sequenceNr);
                if (storedAbove == 0)
                {
                    yield break;
                }

                // Looked up again: missing after a later number was seen stored, it is a gap; it may have been committed
                // since the lookup that missed it.
                sequenceNr--;
            }
        }
    }

    /// <summary>
    /// The lowest sequence number of <paramref name="persistenceId"/> above <paramref name="sequenceNr"/>, among those
    /// submitted for writing, whose event is stored now; 0 if none.
    /// </summary>
    private long FirstStoredAbove(string persistenceId, long sequenceNr)
    {
        var submitted = _counters.SubmittedSequenceNr(persistenceId);
        for (var above = sequenceNr + 1; above <= submitted; above++)
        {
            if (_events.TryGet((persistenceId, above), out _))
            {
                return above;
            }
        }

        return 0;
    }

    /// <summary>
    /// One page of the events tagged <paramref name="tag"/> with orderings above <paramref name="after"/> and at most
    /// <paramref name="upTo"/>, in ordering order: up to <paramref name="limit"/> index entries, deleted events left out.
    /// </summary>
    public TaggedPage ReadTagged(string tag, long after, long upTo, int limit)
    {
        if (after >= upTo)
        {
            return new TaggedPage([], after, More: false);
        }

        var page = _byTag.Page((tag, after + 1), (tag, upTo), limit);
        var scannedTo = page.Items.Count == 0 ? after : Math.Max(after, page.Items.Max(r => r.Ordering));
        var events = page.Items
            .Where(r => !r.IsMarker && r.Ordering > after && r.Tags.Contains(tag, StringComparer.Ordinal) && r.SequenceNr > DeletedTo(r.PersistenceId))
            .ToList();
        return new TaggedPage(events, scannedTo, page.Next is not null);
    }

    /// <summary>
    /// Deletes every event of <paramref name="persistenceId"/> up to <paramref name="toSequenceNr"/> (clamped to the
    /// highest written); the highest sequence number stays. Atomic for readers (see the remarks on the type).
    /// </summary>
    public Task DeleteToAsync(string persistenceId, long toSequenceNr)
    {
        lock (_deleteGate)
        {
            var delete = _lastDelete.ContinueWith(_ => DeleteNowAsync(persistenceId, toSequenceNr), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default).Unwrap();
            _lastDelete = delete.ContinueWith(_ => { }, CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
            return delete;
        }
    }

    private async Task DeleteNowAsync(string persistenceId, long toSequenceNr)
    {
        var marker = _events.TryGet((persistenceId, 0), out var found) ? found : null;
        var deletedTo = marker?.DeletedTo ?? 0;
        var target = Math.Min(toSequenceNr, HighestSequenceNr(persistenceId));
        // From 1, not from deletedTo: events a crash left behind an earlier delete's marker go too.
        var doomed = new List<long>();
        var ordering = marker?.Ordering ?? 0;
        for (var sequenceNr = 1L; sequenceNr <= target; sequenceNr++)
        {
            if (_events.TryGet((persistenceId, sequenceNr), out var record))
            {
                doomed.Add(sequenceNr);
                ordering = Math.Max(ordering, record.Ordering);
            }
        }

        if (target > deletedTo)
        {
            var newMarker = new JournalRecord
            {
                PersistenceId = persistenceId,
                SequenceNr = 0,
                DeletedTo = target,
                Ordering = ordering,
                Timestamp = DateTime.UtcNow.Ticks,
            };
            var first = doomed.Take(DeleteBatch).ToList();
            await _events.WriteAsync(b =>
            {
                b.Upsert(newMarker);
                first.ForEach(s => b.Delete((persistenceId, s)));
            }).ConfigureAwait(false);
            doomed.RemoveRange(0, first.Count);
        }

        foreach (var chunk in doomed.Chunk(DeleteBatch))
        {
            await _events.WriteAsync(b => Array.ForEach(chunk, s => b.Delete((persistenceId, s)))).ConfigureAwait(false);
        }
    }

    /// <summary>Whether <paramref name="e"/> says that nothing was stored (a rejection), as opposed to an uncertain outcome.</summary>
    private static bool IsRejection(Exception e) => e is ArgumentException or DuplicateKeyException or UniqueConstraintException;
}
