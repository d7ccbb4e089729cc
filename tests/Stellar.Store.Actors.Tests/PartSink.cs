using System.Collections.Concurrent;

namespace Stellar.Store.Actors.Tests;

/// <summary>
/// A sink over a set of ints that takes rounds' parts: adding a key the set (or the group) holds is rejected, and adding
/// one that only an earlier unit of the same part adds is a <see cref="RoundConflictException"/>. Its
/// commits can be held at a gate or made to fail, and it logs what it commits and publishes, in order.
/// </summary>
internal sealed class PartSink : ICommitSink<SetWrite, int>
{
    private readonly HashSet<int> _published = new();
    private readonly List<int> _staged = new();
    private readonly List<int> _part = new();
    private readonly List<int> _written = new();
    private long _partRound;

    /// <summary>Every commit's keys and every publish of a part, in order: "commit 1,2", "part 3", "publish 3".</summary>
    public ConcurrentQueue<string> Log { get; } = new();

    /// <summary>While not null, commits wait for it.</summary>
    public TaskCompletionSource? Gate { get; set; }

    /// <summary>Commits that reached the sink (held at the gate or not).</summary>
    public int CommitsStarted => Volatile.Read(ref _commitsStarted);

    /// <summary>Commits fail before anything is written.</summary>
    public bool FailCommits { get; set; }

    /// <summary>While not null, commits wait for it once written, before they are durable (a part has said where it went).</summary>
    public TaskCompletionSource? SyncGate { get; set; }

    /// <summary>Commits fail once written, as an fsync that fails does (a part has said where it went).</summary>
    public bool FailSyncs { get; set; }

    /// <summary>The step of a round's part that throws, as a bug in the engine would: "unstage", "publish" or "end"; null: none.</summary>
    public string? ThrowsAt { get; set; }

    /// <summary>The collection id this sink's part blocks name.</summary>
    public uint Id { get; } = (uint)Interlocked.Increment(ref _ids);

    public IReadOnlyCollection<int> Published => _published;

    private static int _ids;
    private int _commitsStarted;
    private long _offset;

    public Exception? Stage(SetWrite write, out int result)
    {
        result = write.Key;
        if (!write.IsPart)
        {
            if (Holds(write.Key))
            {
                return new InvalidOperationException($"duplicate {write.Key}");
            }

            _staged.Add(write.Key);
            return null;
        }

        var rejected = new List<(int, Exception)>();
        var accepted = new List<int>();
        foreach (var (unit, keys) in write.Units!)
        {
            if (keys.Any(Holds))
            {
                rejected.Add((unit, new InvalidOperationException($"unit {unit}: duplicate")));
            }
            else if (keys.Any(accepted.Contains))
            {
                // A duplicate only of an earlier unit of the part, which may yet be rejected elsewhere: a conflict, as the engine says.
                rejected.Add((unit, new RoundConflictException(new InvalidOperationException($"unit {unit}: duplicate of an earlier unit"))));
            }
            else
            {
                accepted.AddRange(keys);
            }
        }

        if (rejected.Count > 0)
        {
            return new UnitsRejected(rejected);
        }

        _part.AddRange(accepted);
        _partRound = write.Round;
        return null;
    }

    public async Task CommitAsync(Action<IReadOnlyList<PartBlock>>? partPlaced)
    {
        Interlocked.Increment(ref _commitsStarted);
        if (Gate is { } gate)
        {
            await gate.Task;
        }

        await Task.Yield();
        if (FailCommits)
        {
            throw new IOException("disk on fire");
        }

        // Written: a part says where it went, then is made durable.
        PartBlock[] blocks = [new PartBlock(Id, 1, Interlocked.Increment(ref _offset))];
        partPlaced?.Invoke(ThrowsAt == "placed" ? new UnreadableBlocks(blocks) : blocks);
        if (SyncGate is { } syncGate)
        {
            await syncGate.Task;
        }

        if (FailSyncs)
        {
            throw new IOException("fsync on fire");
        }

        Log.Enqueue($"commit {string.Join(",", _staged)}" + (_part.Count > 0 ? $" part {string.Join(",", _part)}" : string.Empty));
        _published.UnionWith(_staged);
        _written.AddRange(_part);
        _staged.Clear();
        _part.Clear();
    }

    public void Discard()
    {
        _staged.Clear();
        _part.Clear();
    }

    public void Unstage()
    {
        ThrowIfAsked("unstage");
        _part.Clear();
    }

    public void PublishPart(long round)
    {
        ThrowIfAsked("publish");
        Log.Enqueue($"publish {round}");
        _published.UnionWith(_written);
        _written.Clear();
    }

    public void EndPart()
    {
        ThrowIfAsked("end");
        Log.Enqueue($"end {_partRound}");
    }

    public Task FlushAsync() => Task.CompletedTask;

    public Exception Fault(Exception cause) => new InvalidOperationException("faulted", cause);

    private void ThrowIfAsked(string step)
    {
        if (step == ThrowsAt)
        {
            throw new InvalidOperationException($"{step} threw");
        }
    }

    private bool Holds(int key) => _published.Contains(key) || _staged.Contains(key) || _part.Contains(key);
}
