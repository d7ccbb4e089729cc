using Stellar.Store.Storage;

namespace Stellar.Store.Tests.Storage;

public sealed class FaultInjectingStorageTests
{
    private const int ChunkSize = 10;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public void Append_AtFailAppendAt_ThrowsAndKeepsEarlierAppends(int failAt)
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailAppendAt = failAt };
        using var file = storage.Open("a");

        int appended = 0;
        var error = Assert.Throws<IOException>(() =>
        {
            for (; appended < 5; appended++)
            {
                file.Append(Chunk(appended));
            }
        });

        Assert.Equal(failAt - 1, appended);
        Assert.Contains($"Append #{failAt}", error.Message, StringComparison.Ordinal);
        Assert.Equal(Chunks(appended), storage.Inner.ReadAllBytes("a"));
        Assert.Equal(1, storage.FaultCount);
    }

    [Fact]
    public void Append_AfterInjectedFailure_PassesThrough()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailAppendAt = 1 };
        using var file = storage.Open("a");
        Assert.Throws<IOException>(() => file.Append(Chunk(0)));

        file.Append(Chunk(0));

        Assert.Equal(Chunks(1), storage.Inner.ReadAllBytes("a"));
        Assert.Equal(2, storage.AppendCount);
    }

    [Fact]
    public void Append_WithTornAppendLength_WritesPrefixThenThrows()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailAppendAt = 2, TornAppendLength = 3 };
        using var file = storage.Open("a");
        file.Append(Chunk(0));

        Assert.Throws<IOException>(() => file.Append(Chunk(1)));

        Assert.Equal([.. Chunk(0), .. Chunk(1)[..3]], storage.Inner.ReadAllBytes("a"));
        Assert.Equal(ChunkSize + 3, file.Length);
        Assert.Equal(ChunkSize + 3, storage.BytesWritten);
    }

    [Fact]
    public void FlushToDisk_AtFailFlushAt_ThrowsAndLeavesBytesUnflushed()
    {
        var memory = new MemoryStorage();
        var storage = new FaultInjectingStorage(memory) { FailFlushAt = 2 };
        using var file = storage.Open("a");
        file.Append(Chunk(0));
        file.FlushToDisk();
        file.Append(Chunk(1));

        Assert.Throws<IOException>(() => file.FlushToDisk());

        memory.SimulateCrash(losesUnsyncedData: true);
        Assert.Equal(Chunks(1), memory.ReadAllBytes("a"));
    }

    [Fact]
    public void FlushToDisk_AfterFailedFlush_KeepsFailing()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailFlushAt = 1 };
        using var file = storage.Open("a");
        file.Append(Chunk(0));
        Assert.Throws<IOException>(() => file.FlushToDisk());

        var error = Assert.Throws<IOException>(() => file.FlushToDisk());

        Assert.Contains("earlier flush", error.Message, StringComparison.Ordinal);
        Assert.Equal(1, storage.FaultCount);
    }

    [Fact]
    public void Append_PastDiskCapacity_WritesWhatFitsThenThrowsDiskFull()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { DiskCapacity = (2 * ChunkSize) + 5 };
        using var file = storage.Open("a");
        file.Append(Chunk(0));
        file.Append(Chunk(1));

        var error = Assert.Throws<IOException>(() => file.Append(Chunk(2)));

        Assert.True(StorageErrors.IsDiskFull(error));
        Assert.Equal(StorageErrors.DiskFullHResult, error.HResult);
        Assert.Contains("No space left on device", error.Message, StringComparison.Ordinal);
        Assert.Equal([.. Chunks(2), .. Chunk(2)[..5]], storage.Inner.ReadAllBytes("a"));
    }

    [Fact]
    public void Append_WhenDiskIsFull_KeepsFailing()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { DiskCapacity = ChunkSize };
        using var file = storage.Open("a");
        file.Append(Chunk(0));

        Assert.Throws<IOException>(() => file.Append(Chunk(1)));
        Assert.Throws<IOException>(() => file.Append(Chunk(1)));

        Assert.Equal(Chunks(1), storage.Inner.ReadAllBytes("a"));
        Assert.Equal(2, storage.FaultCount);
    }

    [Fact]
    public void ReplaceAtomically_AtFailReplaceAt_ThrowsAndKeepsOldContent()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailReplaceAt = 2 };
        storage.ReplaceAtomically("manifest", Chunk(0));

        Assert.Throws<IOException>(() => storage.ReplaceAtomically("manifest", Chunk(1)));

        Assert.Equal(Chunk(0), storage.Inner.ReadAllBytes("manifest"));
    }

    [Fact]
    public void ReplaceAtomically_PastDiskCapacity_ThrowsDiskFullAndKeepsOldContent()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { DiskCapacity = ChunkSize + 1 };
        storage.ReplaceAtomically("manifest", Chunk(0));

        var error = Assert.Throws<IOException>(() => storage.ReplaceAtomically("manifest", Chunk(1)));

        Assert.True(StorageErrors.IsDiskFull(error));
        Assert.Equal(Chunk(0), storage.Inner.ReadAllBytes("manifest"));
    }

    [Fact]
    public void Rename_AtFailRenameAt_ThrowsAndRenamesNothing()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailRenameAt = 1 };
        storage.ReplaceAtomically("from", Chunk(0));

        Assert.Throws<IOException>(() => storage.Rename("from", "to"));

        Assert.Equal(["from"], storage.Inner.List());
    }

    [Fact]
    public void Counters_AfterScenario_CountEveryKind()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage());

        Run(storage, Scenario.Length);

        Assert.Equal(3, storage.AppendCount);
        Assert.Equal(2, storage.FlushCount);
        Assert.Equal(1, storage.ReplaceCount);
        Assert.Equal(1, storage.RenameCount);
        Assert.Equal(1, storage.DeleteCount);
        Assert.Equal(1, storage.TruncateCount);
        Assert.Equal(1, storage.CreateCount);
        Assert.Equal(Scenario.Length, storage.OperationCount);
        Assert.Equal((3 * ChunkSize) + ChunkSize, storage.BytesWritten);
        Assert.Equal(0, storage.FaultCount);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void FailOperationAt_EveryStep_FailsThatStepBeforeOrAfterItsEffect(bool afterEffect)
    {
        var clean = new FaultInjectingStorage(new MemoryStorage());
        Run(clean, Scenario.Length);
        Assert.Equal(Scenario.Length, clean.OperationCount);

        for (int step = 1; step <= Scenario.Length; step++)
        {
            var faulty = new FaultInjectingStorage(new MemoryStorage()) { FailOperationAt = step, Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
            var reference = new FaultInjectingStorage(new MemoryStorage());

            // The reference is a plain run: of the steps before the failed one, or of the failed one too when it
            // failed after its effect.
            Run(reference, afterEffect ? step : step - 1);

            int completed = Run(faulty, Scenario.Length);

            Assert.Equal(step - 1, completed);
            Assert.Equal(1, faulty.FaultCount);
            Assert.Equal(afterEffect ? 1 : 0, faulty.FaultsAfterEffect);
            Assert.Equal(!afterEffect ? 1 : 0, faulty.FaultsBeforeEffect);
            Assert.Equal(Contents(reference.Inner), Contents(faulty.Inner));
        }
    }

    [Fact]
    public void Append_AfterEffectFault_WritesEveryByteThenThrows()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailAppendAt = 2, TornAppendLength = 3, Timing = FaultTiming.AfterEffect };
        using var file = storage.Open("a");
        file.Append(Chunk(0));

        var error = Assert.Throws<IOException>(() => file.Append(Chunk(1)));

        Assert.Contains("after taking effect", error.Message, StringComparison.Ordinal);
        Assert.Equal(Chunks(2), storage.Inner.ReadAllBytes("a"));
        Assert.Equal(2 * ChunkSize, file.Length);
    }

    [Fact]
    public void FlushToDisk_AfterEffectFault_FlushesThenThrowsAndLaterFlushesFail()
    {
        var memory = new MemoryStorage();
        var storage = new FaultInjectingStorage(memory) { FailFlushAt = 1, Timing = FaultTiming.AfterEffect };
        using var file = storage.Open("a");
        file.Append(Chunk(0));

        Assert.Throws<IOException>(() => file.FlushToDisk());
        Assert.Throws<IOException>(() => file.FlushToDisk());

        memory.SimulateCrash(losesUnsyncedData: true);
        Assert.Equal(Chunks(1), memory.ReadAllBytes("a"));
    }

    [Fact]
    public void ReplaceAtomically_AfterEffectFault_ReplacesDurablyThenThrows()
    {
        var memory = new MemoryStorage();
        var storage = new FaultInjectingStorage(memory) { FailReplaceAt = 2, Timing = FaultTiming.AfterEffect };
        storage.ReplaceAtomically("manifest", Chunk(0));

        Assert.Throws<IOException>(() => storage.ReplaceAtomically("manifest", Chunk(1)));

        memory.SimulateCrash(losesUnsyncedData: true);
        Assert.Equal(Chunk(1), memory.ReadAllBytes("manifest"));
        Assert.Equal(1, storage.FaultsAfterEffect);
    }

    [Fact]
    public void Rename_AfterEffectFault_RenamesThenThrows()
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailRenameAt = 1, Timing = FaultTiming.AfterEffect };
        storage.ReplaceAtomically("from", Chunk(0));

        Assert.Throws<IOException>(() => storage.Rename("from", "to"));

        Assert.Equal(["to"], storage.Inner.List());
    }

    [Theory]
    [InlineData(false, true)]
    [InlineData(true, false)]
    public void Delete_AtFailDeleteAt_ThrowsBeforeOrAfterDeleting(bool afterEffect, bool remains)
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailDeleteAt = 1, Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        storage.ReplaceAtomically("old", Chunk(0));

        Assert.Throws<IOException>(() => storage.Delete("old"));

        Assert.Equal(remains, storage.Inner.Exists("old"));
    }

    [Theory]
    [InlineData(false, 2 * ChunkSize)]
    [InlineData(true, ChunkSize)]
    public void Truncate_AtFailTruncateAt_ThrowsBeforeOrAfterTruncating(bool afterEffect, int length)
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailTruncateAt = 1, Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        using var file = storage.Open("a");
        file.Append(Chunks(2));

        Assert.Throws<IOException>(() => file.Truncate(ChunkSize));

        Assert.Equal(length, storage.Inner.ReadAllBytes("a").Length);
    }

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, true)]
    public void Open_AtFailCreateAt_ThrowsBeforeOrAfterCreating(bool afterEffect, bool created)
    {
        var storage = new FaultInjectingStorage(new MemoryStorage()) { FailCreateAt = 2, Timing = afterEffect ? FaultTiming.AfterEffect : FaultTiming.BeforeEffect };
        storage.Open("first").Dispose();
        storage.Open("first").Dispose(); // an existing file: not a creation, not counted

        Assert.Throws<IOException>(() => storage.Open("second"));

        Assert.Equal(created, storage.Inner.Exists("second"));
        Assert.Equal(2, storage.CreateCount);
    }

    // Every counted operation once: a shard append, flushed, a rewrite of the tail, a manifest swapped in by
    // replace and rename, the old file deleted and a new file created.
    private static readonly Action<IStorage, IStorageFile>[] Scenario =
    [
        (_, file) => file.Append(Chunk(0)),
        (_, file) => file.Append(Chunk(1)),
        (_, file) => file.FlushToDisk(),
        (_, file) => file.Truncate(ChunkSize),
        (_, file) => file.Append(Chunk(2)),
        (_, file) => file.FlushToDisk(),
        (storage, _) => storage.ReplaceAtomically("manifest.new", Chunk(3)),
        (storage, _) => storage.Rename("manifest.new", "manifest"),
        (storage, _) => storage.Delete("old"),
        (storage, _) => storage.Open("created").Dispose(),
    ];

    /// <summary>Runs the first <paramref name="steps"/> steps, stopping at the first failure; returns the steps that completed.</summary>
    private static int Run(FaultInjectingStorage storage, int steps)
    {
        storage.Inner.ReplaceAtomically("old", [42]);
        storage.Inner.Open("shard").Dispose(); // so that opening it below is no counted creation
        using var file = storage.Open("shard");
        for (int i = 0; i < steps; i++)
        {
            try
            {
                Scenario[i](storage, file);
            }
            catch (IOException)
            {
                return i;
            }
        }

        return steps;
    }

    private static Dictionary<string, byte[]> Contents(IStorage storage) =>
        storage.List().ToDictionary(name => name, storage.ReadAllBytes);

    private static byte[] Chunk(int index) => Enumerable.Range(index * ChunkSize, ChunkSize).Select(i => (byte)i).ToArray();

    private static byte[] Chunks(int count) => Enumerable.Range(0, count).SelectMany(Chunk).ToArray();
}
