using Stellar.Store.Storage;
using Stellar.Store.Tests.Storage;

namespace Stellar.Store.Tests.Shards;

/// <summary>
/// Real file storage that runs a test's callback just before or after chosen operations, to place a reader's
/// step at an exact point of a compaction (a race that a stress run hits only now and then). Nothing is faked:
/// every operation reaches the files.
/// </summary>
internal sealed class InterleavingStorage(IStorage inner) : ForwardingStorage(inner)
{
    /// <summary>Runs before each open for writing (which creates a missing file), with the file's name.</summary>
    public Action<string>? BeforeOpen { get; set; }

    /// <summary>Runs before each read-only open, with the file's name.</summary>
    public Action<string>? BeforeOpenRead { get; set; }

    /// <summary>Runs after each read-only open succeeded, with the file's name.</summary>
    public Action<string>? AfterOpenRead { get; set; }

    /// <summary>Runs before each delete, with the file's name.</summary>
    public Action<string>? BeforeDelete { get; set; }

    public override IStorageFile Open(string name)
    {
        BeforeOpen?.Invoke(name);
        return base.Open(name);
    }

    public override IStorageFile OpenRead(string name)
    {
        BeforeOpenRead?.Invoke(name);
        var file = base.OpenRead(name);
        AfterOpenRead?.Invoke(name);
        return file;
    }

    public override void Delete(string name)
    {
        BeforeDelete?.Invoke(name);
        base.Delete(name);
    }
}
