using Stellar.Store.Format;

namespace Stellar.Store.Engine;

/// <summary>
/// One collection's part of a round of cross-collection writes: for each unit of the round that touches the
/// collection, its writes here, in round order. The writer checks every unit's preconditions, stages the accepted
/// ones tentatively as the last writes of its group, and holds the group until the coordinator says whether every
/// collection of the round accepted (see <see cref="IWriteStaging{TKey,TValue}.StagePart"/>).
/// </summary>
internal sealed class UnitPartWrite<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    public UnitPartWrite(UnitTag tag, IReadOnlyList<(int Unit, List<SingleWrite<TKey, TValue>> Writes)> units)
    {
        Tag = tag;
        Units = units;
        Bytes = units.Sum(u => u.Writes.Sum(w => (long)w.Length));
    }

    /// <summary>The round the part belongs to, written in front of its blocks.</summary>
    public UnitTag Tag { get; }

    /// <summary>Each unit's index in the round, with its writes to this collection.</summary>
    public IReadOnlyList<(int Unit, List<SingleWrite<TKey, TValue>> Writes)> Units { get; }

    public override long Bytes { get; }

    /// <summary>
    /// Nothing to give back here: the writes are the units' own, and each unit's caller gives their buffers back
    /// once the unit has its outcome, which comes only after every part of the round has one.
    /// </summary>
    public override void Release()
    {
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        return stager.StagePart(this);
    }
}
