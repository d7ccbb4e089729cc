using MessagePack;

namespace Stellar.Store.Samples.GameServer.Model;

/// <summary>
/// A login session (collection <c>sessions</c>, keyed by character id): a lease that says the character is online.
/// Written with an expiry and renewed while the player stays; deleted at logout. After a crash nobody deletes it: it
/// lapses at the end of its lease, so a restarted server needs no cleanup of the players who were online.
/// </summary>
/// <param name="CharacterId">The character that is online.</param>
/// <param name="Account">The account name that plays it.</param>
/// <param name="LoginUtc">When the login completed.</param>
/// <param name="ServerRunId">The run of the server that holds the session: a new id each time a server starts.</param>
[MessagePackObject]
public sealed record SessionRecord(
    [property: Key(0)] long CharacterId,
    [property: Key(1)] string Account,
    [property: Key(2)] DateTime LoginUtc,
    [property: Key(3)] Guid ServerRunId);
