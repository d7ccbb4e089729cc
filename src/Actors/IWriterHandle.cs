namespace Stellar.Store.Actors;

/// <summary>
/// What the owner of many writers needs of each, whatever its write type: flush, close, dispose
/// (see <see cref="WriterHandle{TWrite,TResult}"/>).
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal interface IWriterHandle : IDisposable
{
    /// <summary>Completes when everything committed before the call is durable on the device.</summary>
    Task FlushAsync();

    /// <summary>Finishes queued writes, flushes, and stops the writer.</summary>
    Task CloseAsync();
}
