// Adapted from Akka.Persistence.TCK (Performance/JournalPerfSpec.cs) of the Akka.NET project, Apache License 2.0.

namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>A command of the performance spec: persist <see cref="Payload"/> in a mode (p, pb, pa, pba).</summary>
public sealed record Cmd(string Mode, int Payload);
