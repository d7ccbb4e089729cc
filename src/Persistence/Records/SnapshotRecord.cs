namespace Stellar.Store.Persistence.Records;

/// <summary>
/// One snapshot as it is stored, under the key (persistence id, sequence number): the bytes of Akka's own serializer
/// for the snapshot, and the metadata a load selects by. Layout: <see cref="SnapshotRecordFormatter"/>.
/// </summary>
internal sealed record SnapshotRecord
{
    /// <summary>The persistent actor's id.</summary>
    public required string PersistenceId { get; init; }

    /// <summary>The sequence number the snapshot was taken at.</summary>
    public required long SequenceNr { get; init; }

    /// <summary>The snapshot's timestamp (<c>SnapshotMetadata.Timestamp</c>), in UTC ticks.</summary>
    public long Timestamp { get; init; }

    /// <summary>The id of the Akka serializer that wrote <see cref="Payload"/>.</summary>
    public int SerializerId { get; init; }

    /// <summary>The serializer's manifest of the payload, for serializers that use one.</summary>
    public string SerializerManifest { get; init; } = string.Empty;

    /// <summary>The serialized snapshot.</summary>
    public byte[] Payload { get; init; } = [];
}
