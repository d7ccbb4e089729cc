// Adapted from Akka.Persistence.TCK (Serialization/SnapshotStoreSerializationSpec.cs) of the Akka.NET project, Apache
// License 2.0: Copyright (C) 2009-2020 Lightbend Inc.; Copyright (C) 2013-2020 .NET Foundation.

using System.Text;
using Akka.Actor;
using Akka.Serialization;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>As <see cref="MySnapshotSerializer"/>, with a string manifest.</summary>
public sealed class MySnapshotSerializer2(ExtendedActorSystem system) : SerializerWithStringManifest(system)
{
    private const string ContactsManifest = "A";

    public override int Identifier => 77126;

    public override byte[] ToBinary(object obj) => obj is MySnapshot2 snapshot
        ? Encoding.UTF8.GetBytes($".{snapshot.Data}")
        : throw new ArgumentException($"Can't serialize object of type [{obj?.GetType()}]", nameof(obj));

    public override string Manifest(object o) => o is MySnapshot2
        ? ContactsManifest
        : throw new ArgumentException($"Can't serialize object of type [{o?.GetType()}]", nameof(o));

    public override object FromBinary(byte[] bytes, string manifest) => manifest == ContactsManifest
        ? new MySnapshot2(Encoding.UTF8.GetString(bytes) + ".")
        : throw new ArgumentException($"Unimplemented deserialization of manifest [{manifest}]", nameof(manifest));
}
