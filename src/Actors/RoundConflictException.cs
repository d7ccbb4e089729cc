namespace Stellar.Store.Actors;

/// <summary>
/// A participant's answer for a unit of a round that breaks a precondition only because of an earlier unit of the same
/// round, which may yet be rejected elsewhere: it is not a rejection, and the coordinator runs the unit again in a later
/// round, checked afresh. Never reaches a caller.
/// </summary>
internal sealed class RoundConflictException : Exception
{
    public RoundConflictException(Exception conflict)
        : base($"The write conflicts with an earlier write of its round: {conflict.Message}", conflict)
    {
    }
}
