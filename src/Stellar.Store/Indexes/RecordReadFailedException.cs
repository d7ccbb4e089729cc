namespace Stellar.Store.Indexes;

/// <summary>
/// A build could not read a record's value from its shard (see <see cref="OrderedIndex{TIndexKey,TKey,TValue}.ValueOf"/>):
/// it carries the read's own exception, so that the build fails with it instead of blaming the key selector.
/// </summary>
/// <remarks>Thread safety: immutable. Never leaves the build that throws it.</remarks>
internal sealed class RecordReadFailedException : Exception
{
    public RecordReadFailedException(Exception cause)
        : base(cause.Message, cause)
    {
    }
}
