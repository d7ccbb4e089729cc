using MessagePack;
using Stellar.Store.Actors;

namespace Stellar.Store.Units;

/// <summary>
/// A unit log record: the highest round <see cref="Session"/> decided, and, until an open has checked them, where that
/// round's parts' blocks are (<see cref="Parts"/>). Every earlier round of the session is committed; this one is
/// committed when each of those blocks is on disk (see <see cref="UnitLog"/>). A record without parts is settled:
/// its round is committed. Stored as <see cref="UnitDecisionFormatter"/> writes it.
/// </summary>
/// <param name="Session">The session that decided the round.</param>
/// <param name="Round">The round.</param>
/// <param name="Parts">Where the round's parts' blocks went; null once settled.</param>
[MessagePackFormatter(typeof(UnitDecisionFormatter))]
internal sealed record UnitDecision(Guid Session, long Round, PartBlock[]? Parts);
