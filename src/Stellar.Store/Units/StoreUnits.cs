using Akka.Actor;
using Stellar.Store.Actors;
using Stellar.Store.Format;
using Stellar.Store.Snapshots;

namespace Stellar.Store.Units;

/// <summary>
/// A store's writes across collections and its cuts across them: the coordinator actor, the unit log it records its
/// decisions in, the budget that bounds units in flight, the order units take among their collections' writes, and
/// the collections a store snapshot pins.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class StoreUnits : IUnitLog, IDisposable
{
    private readonly IStoreContext _store;
    private readonly Func<UnitLog> _openLog;
    private readonly RoundClock _rounds = new();
    private readonly IActorRef _coordinator;
    private readonly WriteBudget _budget;
    private readonly List<IPinnable> _maps = new();

    /// <summary>
    /// Units enter their collections' write order under this lock (see <see cref="SubmitInOrderAsync"/>); they are sent
    /// to the coordinator under it, and so is its close: none is sent after the close.
    /// </summary>
    private readonly object _gate = new();

    /// <summary>Units that entered their collections' order and are not yet handed to the coordinator (under <see cref="_gate"/>).</summary>
    private readonly HashSet<Task> _entering = new();
    private bool _closed;
    private UnitLog? _log;

    /// <param name="store">The store the units write to.</param>
    /// <param name="system">The actor system the coordinator runs in, named <paramref name="name"/>.</param>
    /// <param name="name">The coordinator's actor name.</param>
    /// <param name="options">The store's options: the bounds of units in flight.</param>
    /// <param name="openLog">Opens (loads, or makes) the unit log's collection.</param>
    public StoreUnits(IStoreContext store, ActorSystem system, string name, StoreOptions options, Func<UnitLog> openLog)
    {
        _store = store;
        _openLog = openLog;
        _coordinator = system.ActorOf(UnitCoordinator.Props(this, _rounds, Status), name);
        _budget = new WriteBudget(options.MaxQueuedWrites, options.MaxQueuedBytes);
    }

    /// <summary>The exception writes across collections fail with once their coordinator faulted, for health checks.</summary>
    public WriterStatus Status { get; } = new();

    /// <summary>The newest round visible in every collection it touched (rounds are numbered from 1 at each open).</summary>
    public long VisibleRound => _rounds.Visible;

    /// <summary>The unit log's writer, once the log is open.</summary>
    public IWriterHandle? LogWriter => Volatile.Read(ref _log)?.Writer;

    /// <summary>Adds a collection's map to the ones a store snapshot pins.</summary>
    public void AddToCuts(IPinnable map)
    {
        lock (_maps)
        {
            _maps.Add(map);
        }
    }

    /// <summary>Pins one consistent cut across every collection added so far (see <see cref="StoreSnapshot"/>).</summary>
    public StoreSnapshot Snapshot()
    {
        IPinnable[] maps;
        lock (_maps)
        {
            maps = _maps.ToArray();
        }

        return StoreSnapshot.Take(_store, maps, _rounds);
    }

    /// <summary>Whether the round a part block found at open names was committed: the unit log holds its decision.</summary>
    public bool IsDecided(UnitTag tag) => Volatile.Read(ref _log) is { } log && log.IsDecided(tag);

    /// <summary>Makes every decision recorded so far durable on the device (fsync), whatever the mode; nothing to do before the first unit.</summary>
    public Task FlushLogAsync() => LogWriter is { } log ? log.FlushAsync() : Task.CompletedTask;

    /// <summary>Loads the unit log, or makes it at the first write across collections.</summary>
    public void EnsureLog()
    {
        if (Volatile.Read(ref _log) is null)
        {
            Interlocked.CompareExchange(ref _log, _openLog(), null);
        }
    }

    /// <summary>At open, once <see cref="EnsureLog"/> loaded the log and before any other collection loads: see <see cref="UnitLog.Settle"/>.</summary>
    public void Settle(PartProbe probe, string manifestPath) => _log!.Settle(probe, manifestPath);

    /// <summary>The coordinator's decisions go to the unit log, which every unit makes sure of before it is submitted.</summary>
    Task IUnitLog.RecordAsync(Guid session, long round, IReadOnlyList<PartBlock> parts) => _log!.RecordAsync(session, round, parts);

    /// <summary>
    /// Commits <paramref name="parts"/> (two or more collections' writes, checked against the size limits) as one unit,
    /// and gives their buffers back once it has an outcome.
    /// </summary>
    public async Task WriteAsync(List<IUnitBatch> parts, CancellationToken cancellationToken)
    {
        var unit = new StoreUnit(parts.ToDictionary<IUnitBatch, IUnitParticipant, object>(p => p.Participant, p => p.Writes, ReferenceEqualityComparer.Instance));
        var bytes = parts.Sum(p => p.Bytes);
        try
        {
            await SubmitInOrderAsync(unit, parts, bytes, cancellationToken).ConfigureAwait(false);
            try
            {
                await unit.Completion.ConfigureAwait(false);
            }
            finally
            {
                _budget.Release(bytes);
            }
        }
        finally
        {
            parts.ForEach(p => p.Release());
        }
    }

    /// <summary>
    /// Waits for the units made before the call that still wait for their turn (behind writes that wait for other
    /// units), finishes the round in flight and the units queued, then refuses new ones.
    /// </summary>
    public async Task CloseAsync()
    {
        Task[] entering;
        lock (_gate)
        {
            entering = _entering.ToArray();
        }

        await Task.WhenAll(entering).ConfigureAwait(false);

        // Rounds in flight hold their collections' writers: they finish, with their decisions, before any writer closes.
        var rounds = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_gate)
        {
            _closed = true;
            _coordinator.Tell(new UnitProtocol.Close(rounds));
        }

        await rounds.Task.ConfigureAwait(false);
    }

    /// <summary>Fails units still waiting for room with <see cref="ObjectDisposedException"/>; call after <see cref="CloseAsync"/>.</summary>
    public void Dispose() => _budget.Dispose();

    /// <summary>
    /// Hands <paramref name="unit"/> to the coordinator after every write and flush made before it to its collections,
    /// and before every one made after it (see <see cref="WriteOrder"/>), within the unit budget. When it is never handed
    /// on (cancelled, or the store is closing), the unit is completed with why, so that nothing waits for it.
    /// </summary>
    private async Task SubmitInOrderAsync(StoreUnit unit, List<IUnitBatch> parts, long bytes, CancellationToken cancellationToken)
    {
        // Before the unit waits for its turn: by then the store may be closing, and a closing store opens no collection.
        EnsureLog();
        var submitted = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var outcome = unit.Completion.ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        Task before;
        lock (_gate)
        {
            // Under one lock, so that every collection sees units in the same order: a unit never waits for one that
            // waits for it.
            before = Task.WhenAll(parts.Select(p => p.Writer.EnterUnit(submitted.Task, outcome)));
            _entering.Add(submitted.Task);
        }

        try
        {
            await before.WaitAsync(cancellationToken).ConfigureAwait(false);
            await _budget.AdmitAsync(bytes, state => Submit((StoreUnit)state!), unit, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            unit.Complete(e);
            throw;
        }
        finally
        {
            lock (_gate)
            {
                _entering.Remove(submitted.Task);
            }

            submitted.TrySetResult();
        }
    }

    /// <summary>
    /// Sends <paramref name="unit"/> to the coordinator, or refuses it once the coordinator was told to close: a unit sent
    /// after that would reach a stopped actor and never complete.
    /// </summary>
    private void Submit(StoreUnit unit)
    {
        lock (_gate)
        {
            if (_closed)
            {
                unit.Complete(new ObjectDisposedException("store", "The store is closed."));
                return;
            }

            _coordinator.Tell(new UnitProtocol.Submit(unit));
        }
    }
}
