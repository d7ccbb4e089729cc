using Spectre.Console;

namespace Stellar.Store.Tool.Import;

/// <summary>Moves a progress bar to the records a bulk import reports committed, on the thread that reports them.</summary>
internal sealed class ImportProgress : IProgress<BulkImportProgress>
{
    private readonly ProgressTask _task;

    public ImportProgress(ProgressTask task) => _task = task;

    public void Report(BulkImportProgress value) => _task.Value = value.Records;
}
