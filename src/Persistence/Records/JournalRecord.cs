namespace Stellar.Store.Persistence.Records;

/// <summary>
/// One event of the journal as it is stored, under the key (persistence id, sequence number); or, at sequence
/// number 0, the persistence id's marker, which keeps what a delete must not lose (<see cref="DeletedTo"/>).
/// The payload is the bytes of Akka's own serializer for the event, so events may hold actor references and any type
/// Akka can serialize; the store never decodes them. Layout: <see cref="JournalRecordFormatter"/>.
/// </summary>
internal sealed record JournalRecord
{
    /// <summary>The persistent actor's id.</summary>
    public required string PersistenceId { get; init; }

    /// <summary>The event's sequence number, from 1; 0 for the marker.</summary>
    public required long SequenceNr { get; init; }

    /// <summary>
    /// The journal-wide position of the event, strictly increasing in commit order (the read journal's
    /// <c>Sequence</c> offset). On a marker, the highest ordering its delete removed, so that no ordering is handed out twice.
    /// </summary>
    public long Ordering { get; init; }

    /// <summary>When the event was written, in UTC ticks.</summary>
    public long Timestamp { get; init; }

    /// <summary>The writer's id (<c>IPersistentRepresentation.WriterGuid</c>).</summary>
    public string WriterGuid { get; init; } = string.Empty;

    /// <summary>The event adapter's manifest (<c>IPersistentRepresentation.Manifest</c>).</summary>
    public string Manifest { get; init; } = string.Empty;

    /// <summary>The id of the Akka serializer that wrote <see cref="Payload"/>.</summary>
    public int SerializerId { get; init; }

    /// <summary>The serializer's manifest of the payload, for serializers that use one.</summary>
    public string SerializerManifest { get; init; } = string.Empty;

    /// <summary>The serialized event.</summary>
    public byte[] Payload { get; init; } = [];

    /// <summary>The event's tags (from a <c>Tagged</c> wrapper), for the read journal's by-tag queries.</summary>
    public IReadOnlyList<string> Tags { get; init; } = [];

    /// <summary>On a marker: every event up to this sequence number is deleted. 0 on events.</summary>
    public long DeletedTo { get; init; }

    /// <summary>Whether this is the persistence id's marker rather than an event.</summary>
    public bool IsMarker => SequenceNr == 0;
}
