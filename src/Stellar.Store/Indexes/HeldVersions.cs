using System.Collections.Concurrent;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Indexes;

/// <summary>
/// The versions the collection's writer applied while an index was being built beside it, in the order it applied
/// them, for the index to take once its build is done: most of them on the build's own thread, the rest on the
/// writer's turn when the index is installed. So a build during heavy writes does not end in a long stall of the
/// writer, which would otherwise apply every write made during the build in one turn.
/// </summary>
/// <remarks>
/// Thread safety: the writer holds (<see cref="Hold"/>) while the build's thread takes (<see cref="CatchUp"/>); then,
/// after the build's task completed, the writer takes the rest (<see cref="TakeAll"/>). The index is only ever told of
/// the versions by one thread at a time.
/// </remarks>
internal sealed class HeldVersions<TKey, TValue>
{
    /// <summary>At most this many versions are left to the install: a short turn of the writer.</summary>
    private const int LeftToInstall = 1024;

    /// <summary>Passes of <see cref="CatchUp"/> before it gives up on writes arriving as fast as it takes them.</summary>
    private const int MaxPasses = 8;

    private readonly ConcurrentQueue<(TKey Key, bool Deleted, TValue? Value, long Version, VersionNode<TValue>? Node)> _held = new();

    /// <summary>Writer only: the record <paramref name="key"/> was applied at <paramref name="version"/> (see <see cref="IIndexMaintainer{TKey,TValue}.Applied"/>).</summary>
    public void Hold(TKey key, bool deleted, TValue? value, long version, VersionNode<TValue>? node) =>
        _held.Enqueue((key, deleted, value, version, node));

    /// <summary>
    /// The build's thread, after a build that succeeded: tells <paramref name="index"/> of the held versions, in order,
    /// until few are left or the index failed (a key selector that threw); each pass takes what was held when it began.
    /// </summary>
    public void CatchUp(IIndexMaintainer<TKey, TValue> index)
    {
        for (var pass = 0; pass < MaxPasses && _held.Count > LeftToInstall && index.Failure is null; pass++)
        {
            for (var count = _held.Count; count > 0 && _held.TryDequeue(out var held); count--)
            {
                index.Applied(held.Key, held.Deleted, held.Value, held.Version, held.Node);
            }
        }
    }

    /// <summary>Writer only, at the install, once the build's task completed: tells <paramref name="index"/> of every version still held.</summary>
    public void TakeAll(IIndexMaintainer<TKey, TValue> index)
    {
        while (_held.TryDequeue(out var held))
        {
            index.Applied(held.Key, held.Deleted, held.Value, held.Version, held.Node);
        }
    }
}
