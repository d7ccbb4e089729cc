// Adapted from Akka.Persistence.TCK (Serialization/SnapshotStoreSerializationSpec.cs) of the Akka.NET project, Apache
// License 2.0: Copyright (C) 2009-2020 Lightbend Inc.; Copyright (C) 2013-2020 .NET Foundation.

using System.Text;
using Akka.Actor;
using Akka.Serialization;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>Writes ".data" and reads back "data." so that a round trip shows it went through this serializer.</summary>
public sealed class MySnapshotSerializer(ExtendedActorSystem system) : Serializer(system)
{
    public override int Identifier => 77124;

    public override bool IncludeManifest => true;

    public override byte[] ToBinary(object obj) => obj is MySnapshot snapshot
        ? Encoding.UTF8.GetBytes($".{snapshot.Data}")
        : throw new ArgumentException($"Can't serialize object of type [{obj?.GetType()}]", nameof(obj));

    public override object FromBinary(byte[] bytes, Type type) => type == typeof(MySnapshot)
        ? new MySnapshot($"{Encoding.UTF8.GetString(bytes)}.")
        : throw new ArgumentException($"Unimplemented deserialization of [{type}]", nameof(type));
}
