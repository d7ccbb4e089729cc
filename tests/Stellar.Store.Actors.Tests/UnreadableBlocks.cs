using System.Collections;

namespace Stellar.Store.Actors.Tests;

/// <summary>A part's blocks that throw when read: whoever reads them (the coordinator, on its turn) gets the exception.</summary>
internal sealed class UnreadableBlocks(IReadOnlyList<PartBlock> blocks) : IReadOnlyList<PartBlock>
{
    public int Count => blocks.Count;

    public PartBlock this[int index] => throw new InvalidOperationException("blocks unreadable");

    public IEnumerator<PartBlock> GetEnumerator() => throw new InvalidOperationException("blocks unreadable");

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
