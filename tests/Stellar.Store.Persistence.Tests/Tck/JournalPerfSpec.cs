// Adapted from Akka.Persistence.TCK (Performance/JournalPerfSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2020 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2020 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: no timing assertions (the project's rule); the times go to the test output. One measured iteration after
// the warm-up by default, the TCK's 10 under STELLAR_STRESS=1. The wait for the last reply is 60 s, not 10 s, as the
// machine that runs the suite is shared.

using System.Diagnostics;
using Akka.Actor;
using Akka.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>The TCK's journal performance specification against <see cref="StellarJournal"/>, as measurements, not assertions.</summary>
public class JournalPerfSpec : PluginSpec
{
    private const int EventsCount = 10 * 1000;
    private static readonly int MeasurementIterations = Stress.Pick(1, 10);
    private static readonly TimeSpan ExpectDuration = TimeSpan.FromSeconds(60);
    private static readonly IReadOnlyList<int> Commands = Enumerable.Range(1, EventsCount).ToList();
    private readonly TestProbe _testProbe;

    public JournalPerfSpec(ITestOutputHelper output)
        : this(PluginTestConfig.NewDirectory(), output)
    {
    }

    private JournalPerfSpec(string directory, ITestOutputHelper output)
        : base(directory, PluginTestConfig.For(directory), nameof(JournalPerfSpec), output)
    {
        _testProbe = CreateTestProbe();
    }

    [Fact]
    public void PersistenceActor_performance_must_measure_Persist()
    {
        var actor = BenchActor("PersistPid");
        Measure(d => $"Persist()-ing {EventsCount} took {d.TotalMilliseconds} ms", () =>
        {
            FeedAndExpectLast(actor, "p");
            actor.Tell(ResetCounter.Instance);
        });
    }

    [Fact]
    public void PersistenceActor_performance_must_measure_PersistAll()
    {
        var actor = BenchActor("PersistAllPid");
        Measure(d => $"PersistAll()-ing {EventsCount} took {d.TotalMilliseconds} ms", () =>
        {
            FeedAndExpectLast(actor, "pb");
            actor.Tell(ResetCounter.Instance);
        });
    }

    [Fact]
    public void PersistenceActor_performance_must_measure_PersistAsync()
    {
        var actor = BenchActor("PersistAsyncPid");
        Measure(d => $"PersistAsync()-ing {EventsCount} took {d.TotalMilliseconds} ms", () =>
        {
            FeedAndExpectLast(actor, "pa");
            actor.Tell(ResetCounter.Instance);
        });
    }

    [Fact]
    public void PersistenceActor_performance_must_measure_PersistAllAsync()
    {
        var actor = BenchActor("PersistAllAsyncPid");
        Measure(d => $"PersistAllAsync()-ing {EventsCount} took {d.TotalMilliseconds} ms", () =>
        {
            FeedAndExpectLast(actor, "pba");
            actor.Tell(ResetCounter.Instance);
        });
    }

    [Fact]
    public void PersistenceActor_performance_must_measure_Recovering()
    {
        var actor = BenchActor("PersistRecoverPid");
        FeedAndExpectLast(actor, "p");
        Measure(d => $"Recovering {EventsCount} took {d.TotalMilliseconds} ms", () =>
        {
            BenchActor("PersistRecoverPid");
            _testProbe.ExpectMsg(Commands[^1], ExpectDuration);
        });
    }

    private IActorRef BenchActor(string pid)
    {
        var replyTo = _testProbe.Ref;
        return Sys.ActorOf(Props.Create(() => new BenchActor(pid, replyTo, EventsCount)));
    }

    private void FeedAndExpectLast(IActorRef actor, string mode)
    {
        foreach (var command in Commands)
        {
            actor.Tell(new Cmd(mode, command));
        }

        _testProbe.ExpectMsg(Commands[^1], ExpectDuration);
    }

    private void Measure(Func<TimeSpan, string> message, Action block)
    {
        block(); // warm-up
        var measurements = new List<TimeSpan>(MeasurementIterations);
        for (var i = 0; i < MeasurementIterations; i++)
        {
            var stopwatch = Stopwatch.StartNew();
            block();
            stopwatch.Stop();
            measurements.Add(stopwatch.Elapsed);
            Output?.WriteLine(message(stopwatch.Elapsed));
        }

        var average = measurements.Average(m => m.TotalMilliseconds);
        Output?.WriteLine($"Average time: {average} ms, {EventsCount / average * 1000} msg/sec");
    }
}
