namespace Stellar.Store.Benchmarks.Persistence;

/// <summary>How the benchmark's events are serialized, the same for every journal of a run.</summary>
public enum EventSerialization
{
    /// <summary>
    /// <see cref="ScoredSerializer"/>, bound by HOCON, as Akka.Persistence's "Custom serialization" page binds persisted
    /// payloads (the default run).
    /// </summary>
    Binary,

    /// <summary>Akka's default serializer for objects (Newtonsoft JSON), which a system without a binding uses.</summary>
    Json,
}
