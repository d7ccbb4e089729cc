namespace Stellar.Store.Persistence.Tests.Tck;

/// <summary>An event bound to <see cref="FailingSerializer"/>: a journal must reject it, not fail.</summary>
public sealed record NotSerializableEvent(bool Foo);
