using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>The key of a record in the <c>economy</c> collection: its kind and its id.</summary>
/// <param name="Kind">Which kind of record.</param>
/// <param name="Id">The record's id, unique across every kind (one id sequence).</param>
[MessagePackObject]
public readonly record struct EconomyKey([property: Key(0)] EconomyKind Kind, [property: Key(1)] long Id);
