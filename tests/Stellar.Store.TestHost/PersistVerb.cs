using Akka.Actor;
using Akka.Configuration;
using Stellar.Store.Persistence;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>persist &lt;dir&gt; &lt;actors&gt;</c>: runs that many persistent actors (<c>p-0</c>, <c>p-1</c>, ...) on the Stellar journal
/// at <c>dir</c> (write-through) until killed. Each recovers, prints <c>ready &lt;id&gt; &lt;highest&gt;</c>, then persists
/// the events <c>e&lt;n&gt;</c> one after another, and prints <c>ack &lt;id&gt; &lt;n&gt;</c> in each Persist handler, that is
/// once the journal acknowledged the event: the parent kills the process at any point and checks that every event
/// acknowledged so replays, in order, with no gaps.
/// </summary>
internal static class PersistVerb
{
    public static int Run(string[] args)
    {
        if (args.Length != 2 || !int.TryParse(args[1], out var actors) || actors < 1)
        {
            Console.Error.WriteLine("usage: persist <dir> <actors>");
            return ExitCodes.Usage;
        }

        var system = ActorSystem.Create("persist", Config(args[0]));
        for (var i = 0; i < actors; i++)
        {
            system.ActorOf(Props.Create(() => new CountingActor($"p-{i}")), $"p-{i}");
        }

        system.WhenTerminated.Wait();
        return ExitCodes.Success;
    }

    /// <summary>The journal and snapshot store at <paramref name="directory"/>, as the parent's check opens them.</summary>
    public static Config Config(string directory) => ConfigurationFactory.ParseString($$"""
            akka.loglevel = WARNING
            akka.persistence.journal.plugin = "akka.persistence.journal.stellar"
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.stellar"
            akka.persistence.journal.stellar.path = "{{directory.Replace("\\", "/", StringComparison.Ordinal)}}"
            akka.persistence.snapshot-store.stellar.path = "{{directory.Replace("\\", "/", StringComparison.Ordinal)}}"
            """).WithFallback(StellarPersistence.DefaultConfiguration());
}
