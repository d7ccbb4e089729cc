using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

/// <summary>With no knob set, the wrapper must be invisible: it runs the contract over real files.</summary>
public sealed class FaultInjectingStorageContractTests : StorageContractTests
{
    private readonly TempDirectory _directory = new();

    private protected override IStorage CreateStorage() => new FaultInjectingStorage(new FileStorage(_directory.Path));

    private protected override IStorage Reopen() => new FaultInjectingStorage(new FileStorage(_directory.Path));

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _directory.Dispose();
        }

        base.Dispose(disposing);
    }
}
