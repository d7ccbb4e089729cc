using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Engine;

/// <summary>
/// Real storage that cancels a token the moment a compaction opens its output file, so a test cancels a
/// <see cref="Collection{TKey, TValue}.CompactAsync"/> in the middle of its copy, every time, without a timer.
/// </summary>
internal sealed class CancellingStorage(IStorage inner, CancellationTokenSource cancel) : ForwardingStorage(inner)
{
    public override IStorageFile Open(string name)
    {
        var file = base.Open(name);
        if (name.EndsWith(".compacting", StringComparison.Ordinal))
        {
            cancel.Cancel();
        }

        return file;
    }
}
