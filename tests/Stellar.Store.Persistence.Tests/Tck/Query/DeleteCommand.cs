namespace Stellar.Store.Persistence.Tests.Tck.Query;

/// <summary>Asks a <see cref="QueryTestActor"/> to delete its events up to <see cref="ToSequenceNr"/>.</summary>
internal sealed record DeleteCommand(long ToSequenceNr);
