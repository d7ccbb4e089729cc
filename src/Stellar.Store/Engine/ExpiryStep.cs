using Stellar.Store.Codecs;

namespace Stellar.Store.Engine;

/// <summary>
/// A request to the collection's writer, queued like a write, to remove every record that has expired: the writer
/// stages a delete record of each (encoded through the step), so that a reopen agrees that they are gone and a
/// compaction drops them. Readers stopped seeing them at their time already; this makes it durable. The engine also
/// makes one of its own at the start of each group of writes (see <see cref="CollectionEngine{TKey,TValue}"/>).
/// </summary>
internal sealed class ExpiryStep<TKey, TValue> : CollectionWrite<TKey, TValue>
{
    private readonly List<SingleWrite<TKey, TValue>> _deletes = new();

    /// <summary>Nothing of it is queued data when it is submitted: it never holds back a write.</summary>
    public override long Bytes => 0;

    /// <summary>The records the step removed (deletes it staged), once it committed.</summary>
    public int Removed => _deletes.Count;

    /// <summary>Writer only: encodes the delete of <paramref name="key"/> with the collection's <paramref name="serializer"/>; the step owns it until it is released.</summary>
    public SingleWrite<TKey, TValue> Delete(TKey key, RecordSerializer serializer)
    {
        // No limit to check: the key is a stored record's, which met the limit when it was written.
        var delete = SingleWrite<TKey, TValue>.Create(serializer, WriteKind.Delete, key, default, maxKeyBytes: int.MaxValue, maxValueBytes: 0);
        _deletes.Add(delete);
        return delete;
    }

    /// <summary>Gives back the buffers of the deletes it staged.</summary>
    public override void Release()
    {
        foreach (var delete in _deletes)
        {
            delete.Release();
        }
    }

    public override Exception? StageInto(IWriteStaging<TKey, TValue> stager, out bool existed)
    {
        existed = false;
        stager.StageExpiry(this);
        return null;
    }
}
