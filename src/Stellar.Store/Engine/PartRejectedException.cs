namespace Stellar.Store.Engine;

/// <summary>
/// The rejection of a collection's part of a round: which of the round's units broke a precondition here, and the
/// exception each unit's caller gets. Nothing of the part was staged.
/// </summary>
internal sealed class PartRejectedException : Exception
{
    public PartRejectedException(IReadOnlyList<(int Unit, Exception Cause)> rejections)
        : base($"{rejections.Count} unit(s) of the round were rejected: {rejections[0].Cause.Message}")
    {
        Rejections = rejections;
    }

    /// <summary>Each rejected unit's index in the round, with its rejection.</summary>
    public IReadOnlyList<(int Unit, Exception Cause)> Rejections { get; }
}
