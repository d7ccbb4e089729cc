namespace Stellar.Store.Engine;

/// <summary>
/// The blocks of one bulk import, queued one behind another without waiting for each other's outcome: once the
/// writer rejects one (a unique index key already held), it rejects every later one, so what an import stores is
/// a prefix of its source whichever of its blocks were still queued.
/// </summary>
/// <remarks>
/// Used only while the collection's writer stages a block, one turn after another, so it needs no lock.
/// </remarks>
internal sealed class ImportChain
{
    private Exception? _rejection;

    /// <summary>
    /// Stages a block of the import with <paramref name="stage"/> and returns its rejection; a block behind a rejected
    /// one is rejected without being staged.
    /// </summary>
    public Exception? Stage(Func<Exception?> stage)
    {
        if (_rejection is { } earlier)
        {
            return new InvalidOperationException("An earlier block of this bulk import was rejected, so this one was not stored.", earlier);
        }

        _rejection = stage();
        return _rejection;
    }
}
