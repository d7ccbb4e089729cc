using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

public sealed class MemoryStorageContractTests : StorageContractTests
{
    private protected override IStorage CreateStorage() => new MemoryStorage();

    // The instance is the store: the next opener in the same process shares it.
    private protected override IStorage Reopen() => Storage;
}
