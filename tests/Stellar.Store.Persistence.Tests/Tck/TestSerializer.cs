// Adapted from Akka.Persistence.TCK (Serialization/TestSerializer.cs) of the Akka.NET project, Apache License 2.0:
//     Copyright (C) 2009-2019 Lightbend Inc. <http://www.lightbend.com>
//     Copyright (C) 2013-2019 .NET Foundation <https://github.com/akkadotnet/akka.net>
// Changed: one type per file, the project's style.

using System.Runtime.Serialization;
using System.Text;
using Akka.Actor;
using Akka.Serialization;
using AkkaSerialization = Akka.Serialization.Serialization;

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>
/// Serializes <see cref="TestPayload"/> by its actor's path, and fails unless the plugin set the system's transport
/// information, as the TCK's serializer does: the proof that a plugin serializes with <c>Serialization.WithTransport</c>.
/// </summary>
public sealed class TestSerializer(ExtendedActorSystem system) : SerializerWithStringManifest(system)
{
    public override int Identifier => 666;

    public override byte[] ToBinary(object obj)
    {
        if (obj is not TestPayload payload)
        {
            throw new SerializationException($"Unsupported message type [{obj?.GetType()}]");
        }

        VerifyTransportInfo();
        return Encoding.UTF8.GetBytes(AkkaSerialization.SerializedActorPath(payload.Ref));
    }

    public override object FromBinary(byte[] bytes, string manifest)
    {
        VerifyTransportInfo();
        return manifest == "A"
            ? new TestPayload(system.Provider.ResolveActorRef(Encoding.UTF8.GetString(bytes)))
            : throw new SerializationException($"Unsupported manifest [{manifest}]");
    }

    public override string Manifest(object o) => o is TestPayload ? "A" : string.Empty;

    private void VerifyTransportInfo()
    {
        var information = AkkaSerialization.GetCurrentTransportInformation()
            ?? throw new InvalidOperationException("CurrentTransportInformation was not set");
        if (!information.System.Equals(system))
        {
            throw new InvalidOperationException($"wrong system in CurrentTransportInformation, {information.System} != {system}");
        }

        if (information.Address != system.Provider.DefaultAddress)
        {
            throw new InvalidOperationException($"wrong address in CurrentTransportInformation, {information.Address} != {system.Provider.DefaultAddress}");
        }
    }
}
