namespace Stellar.Store.Actors.Tests;

/// <summary>A write of <see cref="PartSink"/>: one key to add, or a round's part (each unit's keys to add).</summary>
internal sealed record SetWrite(int Key, long Round = 0, IReadOnlyList<(int Unit, int[] Keys)>? Units = null)
{
    public bool IsPart => Units is not null;
}
