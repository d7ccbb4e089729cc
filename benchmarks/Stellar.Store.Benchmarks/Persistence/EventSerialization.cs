namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>How the benchmark's events are serialized, the same for every journal of a run.</summary>
public enum EventSerialization
{
    /// <summary><see cref="ScoredSerializer"/>, bound by HOCON: what Akka.NET advises for persisted messages (the default run).</summary>
    Binary,

    /// <summary>Akka's default serializer for objects (Newtonsoft JSON), as a system without a binding of its own does.</summary>
    Json,
}
