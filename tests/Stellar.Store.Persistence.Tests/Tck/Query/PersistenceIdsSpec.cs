// Adapted from Akka.Persistence.TCK (Query/PersistenceIdsSpec.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2022 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2025 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Persistence.Query;
using Akka.Streams.TestKit;
using Xunit.Abstractions;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>The TCK's live persistence-ids query specification against the Stellar read journal.</summary>
public class PersistenceIdsSpec(ITestOutputHelper output) : QuerySpec(PluginTestConfig.NewDirectory(), nameof(PersistenceIdsSpec), output)
{
    private IPersistenceIdsQuery Queries => (IPersistenceIdsQuery)ReadJournal;

    [Fact]
    public void ReadJournal_should_implement_IAllPersistenceIdsQuery() => Assert.IsAssignableFrom<IPersistenceIdsQuery>(ReadJournal);

    [Fact]
    public void ReadJournal_AllPersistenceIds_should_find_new_events()
    {
        Setup("e", 1);
        Setup("f", 1);
        var probe = Queries.PersistenceIds().RunWith(this.SinkProbe<string>(), Materializer);
        probe.Within(TimeSpan.FromSeconds(10), () => probe.Request(5).ExpectNextUnordered("e", "f"));

        Setup("g", 1);
        probe.ExpectNext("g", TimeSpan.FromSeconds(10));
    }

    [Fact]
    public void ReadJournal_AllPersistenceIds_should_find_new_events_after_demand_request()
    {
        Setup("h", 1);
        Setup("i", 1);
        var probe = Queries.PersistenceIds().RunWith(this.SinkProbe<string>(), Materializer);
        probe.Within(TimeSpan.FromSeconds(10), () =>
        {
            probe.Request(1).ExpectNext();
            return probe.ExpectNoMsg(TimeSpan.FromMilliseconds(100));
        });

        Setup("j", 1);
        probe.Within(TimeSpan.FromSeconds(10), () =>
        {
            probe.Request(5).ExpectNext();
            return probe.ExpectNext();
        });
    }

    [Fact]
    public void ReadJournal_AllPersistenceIds_should_only_deliver_what_requested_if_there_is_more_in_the_buffer()
    {
        foreach (var id in new[] { "k", "l", "m", "n", "o" })
        {
            Setup(id, 1);
        }

        var probe = Queries.PersistenceIds().RunWith(this.SinkProbe<string>(), Materializer);
        probe.Within(TimeSpan.FromSeconds(10), () =>
        {
            probe.Request(2);
            probe.ExpectNext();
            probe.ExpectNext();
            probe.ExpectNoMsg(TimeSpan.FromMilliseconds(1000));

            probe.Request(2);
            probe.ExpectNext();
            probe.ExpectNext();
            probe.ExpectNoMsg(TimeSpan.FromMilliseconds(1000));
            return probe;
        });
    }

    [Fact]
    public void ReadJournal_AllPersistenceIds_should_deliver_persistenceId_only_once_if_there_are_multiple_events()
    {
        Setup("p", 1000);
        var probe = Queries.PersistenceIds().RunWith(this.SinkProbe<string>(), Materializer);
        probe.Within(TimeSpan.FromSeconds(10), () => probe.Request(10).ExpectNext("p").ExpectNoMsg(TimeSpan.FromMilliseconds(1000)));

        Setup("q", 1000);
        probe.Within(TimeSpan.FromSeconds(10), () => probe.Request(10).ExpectNext("q").ExpectNoMsg(TimeSpan.FromMilliseconds(1000)));
    }
}
