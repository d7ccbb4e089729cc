namespace Stellar.Store.Actors;

/// <summary>
/// The state of <see cref="UnitCoordinator"/>'s round in flight: its units, the collections they touch, the step it
/// is at and the answers still awaited there, and what went wrong.
/// </summary>
/// <remarks>Thread safety: the coordinator's alone.</remarks>
internal sealed class UnitRound
{
    private readonly List<List<(int Index, IUnitWrite Unit)>> _unitsOf = new();
    private readonly Dictionary<int, Exception> _rejections = new();
    private readonly HashSet<int> _conflicts = new();

    public UnitRound(long number, List<IUnitWrite> units)
    {
        Number = number;
        Units = units;
        var indexOf = new Dictionary<IUnitParticipant, int>(ReferenceEqualityComparer.Instance);
        for (var u = 0; u < units.Count; u++)
        {
            foreach (var participant in units[u].Participants)
            {
                if (!indexOf.TryGetValue(participant, out var p))
                {
                    p = indexOf[participant] = Participants.Count;
                    Participants.Add(participant);
                    _unitsOf.Add(new List<(int, IUnitWrite)>());
                }

                _unitsOf[p].Add((u, units[u]));
            }
        }

        Staged = new bool[Participants.Count];
        Answered = new bool[Participants.Count];
        Placed = new bool[Participants.Count];
        Pending = Participants.Count;
    }

    /// <summary>The steps of a round, in order.</summary>
    public enum Step
    {
        Stage,

        /// <summary>The parts are written and made durable while, once every part is placed, the decision is recorded.</summary>
        Write,
        Publish,
    }

    public long Number { get; }

    public List<IUnitWrite> Units { get; }

    /// <summary>Every collection the round touches, each once; a participant's index is its place here.</summary>
    public List<IUnitParticipant> Participants { get; } = new();

    /// <summary>Which participants staged their part (and hold a group).</summary>
    public bool[] Staged { get; }

    /// <summary>Which participants answered the stage step, staged or rejected.</summary>
    public bool[] Answered { get; }

    public Step Current { get; private set; }

    /// <summary>How many participants were sent their part, in order (at <see cref="Step.Stage"/>).</summary>
    public int Prepared { get; set; }

    /// <summary>Answers still awaited at the current step.</summary>
    public int Pending { get; set; }

    /// <summary>
    /// The first failure of a part's write (at <see cref="Step.Write"/>) or publish (at <see cref="Step.Publish"/>), or
    /// the coordinator's own, at either.
    /// </summary>
    public Exception? Failure { get; set; }

    /// <summary>Which participants said where their part's blocks went.</summary>
    public bool[] Placed { get; }

    /// <summary>Parts still to report where their blocks went (at <see cref="Step.Write"/>).</summary>
    public int Unplaced { get; set; }

    /// <summary>Where every placed part's blocks went, for the decision.</summary>
    public List<PartBlock> Blocks { get; } = new();

    /// <summary>Whether the decision's record has an outcome; <see cref="DecisionFailure"/> says which.</summary>
    public bool Decided { get; set; }

    /// <summary>Why the decision's record may not be on disk, once <see cref="Decided"/>.</summary>
    public Exception? DecisionFailure { get; set; }

    /// <summary>Whether a unit of the round was rejected or conflicts with an earlier one: the round cannot go ahead whole.</summary>
    public bool HasRejections => _rejections.Count > 0 || _conflicts.Count > 0;

    /// <summary>The units of the round that write to participant <paramref name="participant"/>, with their index in the round.</summary>
    public IReadOnlyList<(int Index, IUnitWrite Unit)> UnitsOf(int participant) => _unitsOf[participant];

    /// <summary>Moves to <paramref name="step"/>, which awaits an answer from every participant.</summary>
    public void Next(Step step)
    {
        Current = step;
        Pending = Participants.Count;
        Unplaced = Participants.Count;
    }

    /// <summary>Records a participant's rejection: the units it names, or all of its units.</summary>
    public void Reject(int participant, Exception rejection)
    {
        var named = Participants[participant].Rejections(rejection);
        if (named is null)
        {
            foreach (var (index, _) in _unitsOf[participant])
            {
                _rejections.TryAdd(index, rejection);
            }

            return;
        }

        foreach (var (index, cause) in named)
        {
            if (cause is RoundConflictException)
            {
                _conflicts.Add(index);
            }
            else
            {
                _rejections.TryAdd(index, cause);
            }
        }
    }

    /// <summary>
    /// Whether unit <paramref name="index"/>, not rejected anywhere, broke a precondition only because of an earlier
    /// unit of the round: it must be checked again once the units before it have their outcome.
    /// </summary>
    public bool Conflicts(int index) => _conflicts.Contains(index) && !_rejections.ContainsKey(index);

    /// <summary>Why unit <paramref name="index"/> was rejected, or null.</summary>
    public Exception? Rejection(int index) => _rejections.GetValueOrDefault(index);
}
