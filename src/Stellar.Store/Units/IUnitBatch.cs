using Stellar.Store.Actors;

namespace Stellar.Store.Units;

/// <summary>
/// One collection's writes of a <see cref="StoreWriteBatch"/>, whatever its key and value types: what the store needs
/// to commit them alone (a unit that touches one collection is that collection's atomic batch) or as a unit's part.
/// </summary>
/// <remarks>Not thread-safe: used on the thread that called <see cref="StellarStore.WriteAsync"/>.</remarks>
internal interface IUnitBatch
{
    /// <summary>The collection as a participant of cross-collection rounds.</summary>
    IUnitParticipant Participant { get; }

    /// <summary>The collection's writer, whose order the unit enters.</summary>
    IWriterHandle Writer { get; }

    /// <summary>The writes added so far.</summary>
    int Count { get; }

    /// <summary>The encoded bytes of the writes.</summary>
    long Bytes { get; }

    /// <summary>The writes, as the participant's part expects them.</summary>
    object Writes { get; }

    /// <summary>Rejects the writes (nothing stored) when they are more than one atomic batch of the collection may hold.</summary>
    void CheckSize(string paramName);

    /// <summary>Commits the writes as the collection's own atomic batch; gives their buffers back once it has an outcome.</summary>
    Task SubmitAloneAsync(CancellationToken cancellationToken);

    /// <summary>Gives the writes' buffers back.</summary>
    void Release();
}
