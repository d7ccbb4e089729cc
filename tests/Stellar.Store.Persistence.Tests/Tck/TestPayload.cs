// Adapted from Akka.Persistence.TCK (Serialization/TestSerializer.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2019 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2019 .NET Foundation <https://github.com/akkadotnet/akka.net>

using Akka.Actor;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>A payload that holds an actor reference, serialized by <see cref="TestSerializer"/>.</summary>
public sealed record TestPayload(IActorRef Ref);
