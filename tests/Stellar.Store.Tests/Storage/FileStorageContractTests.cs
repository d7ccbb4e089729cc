using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

public sealed class FileStorageContractTests : StorageContractTests
{
    private readonly TempDirectory _directory = new();

    private protected override IStorage CreateStorage() => new FileStorage(_directory.Path);

    private protected override IStorage Reopen() => new FileStorage(_directory.Path);

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _directory.Dispose();
        }

        base.Dispose(disposing);
    }
}
