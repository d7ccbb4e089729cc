// Adapted from Akka.Persistence.TCK (Query/TestActor.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2019 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2019 .NET Foundation <https://github.com/akkadotnet/akka.net>

using System.Collections.Immutable;
using Akka.Persistence.Journal;

namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>Tags a string event with each color and fruit it names, wrapping it in <see cref="Tagged"/>.</summary>
public sealed class ColorFruitTagger : IWriteEventAdapter
{
    private static readonly ImmutableHashSet<string> Tags = ImmutableHashSet.Create("green", "black", "blue", "apple", "banana");

    public string Manifest(object evt) => string.Empty;

    public object ToJournal(object evt)
    {
        if (evt is not string s)
        {
            return evt;
        }

        var tags = Tags.Where(t => s.Contains(t, StringComparison.Ordinal)).ToImmutableHashSet();
        return tags.IsEmpty ? evt : new Tagged(evt, tags);
    }
}
