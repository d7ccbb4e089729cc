namespace Stellar.Store.Actors.Tests;

/// <summary>The rejection of a part by <see cref="PartSink"/>: the units that add a key the set holds.</summary>
internal sealed class UnitsRejected(IReadOnlyList<(int Unit, Exception Cause)> units) : Exception("units rejected")
{
    public IReadOnlyList<(int Unit, Exception Cause)> Units { get; } = units;
}
