using System.CommandLine;
using System.Globalization;
using Spectre.Console;
using Stellar.Store.Format;
using Stellar.Store.Tool.Import;
using Stellar.Store.Tool.Raw;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar import STORE COLLECTION --input FILE</c>: upserts the records of a JSON Lines file (as export writes
/// them) into a collection, with a progress bar. Every line is read and checked first, so a bad file changes nothing.
/// A collection the store has keeps its recorded types, and keys and values are checked against them where the tool
/// can load them; a new collection is recorded with <c>--key-type</c> and <c>--value-type</c> (default
/// <c>System.Object</c>: untyped). A store that does not exist yet is created.
/// </summary>
internal static class ImportCommand
{
    private static readonly string ObjectType = typeof(object).ToString();

    public static Command Create(ToolContext context)
    {
        var command = new Command("import", "Upsert the records of a JSON Lines file into a collection, with a progress bar");
        var store = StoreArguments.Store("The store directory (created when it does not exist)");
        var collection = StoreArguments.Collection("The collection to import into (created when the store has none of that name)");
        var input = new Option<FileInfo>("--input", "-i") { Description = "The JSON Lines file to import", Required = true };
        var keyType = new Option<string>("--key-type") { Description = "A new collection's recorded key type, e.g. System.Int32 (default System.Object)" };
        var valueType = new Option<string>("--value-type") { Description = "A new collection's recorded value type, e.g. MyGame.Player (default System.Object)" };
        var compression = new Option<Compression?>("--compression") { Description = "A new store's compression (None or Lz4); an existing store keeps its own" };
        command.Arguments.Add(store);
        command.Arguments.Add(collection);
        command.Options.Add(input);
        command.Options.Add(keyType);
        command.Options.Add(valueType);
        command.Options.Add(compression);
        var secrets = new StoreSecrets(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            var directory = parse.GetValue(store)!;
            StoreAccess.RequireNotAFile(directory);
            var name = parse.GetValue(collection)!;
            if (!CollectionName.IsValid(name))
            {
                throw new ToolException(ExitCodes.BadInput, $"'{name}' is not a collection name: {CollectionName.Rule}.");
            }

            var file = parse.GetValue(input)!;
            if (!file.Exists)
            {
                throw new ToolException(ExitCodes.BadInput, $"There is no input file '{file.FullName}'.");
            }

            var exists = File.Exists(Path.Combine(directory.FullName, StoreFileNames.Manifest));
            var (recordedKey, recordedValue, storeCompression) = exists ? Recorded(directory, name, key, passphrase) : (null, null, parse.GetValue(compression) ?? Compression.None);
            var types = (Key: recordedKey ?? parse.GetValue(keyType) ?? ObjectType, Value: recordedValue ?? parse.GetValue(valueType) ?? ObjectType);
            CheckTypeOptions(parse.GetValue(keyType), parse.GetValue(valueType), recordedKey, recordedValue, name);

            var records = ImportFile.Read(file.FullName, new RecordedTypeCheck(types.Key), new RecordedTypeCheck(types.Value), DateTimeOffset.UtcNow, out var expired);
            var opened = await StoreAccess.OpenAsync(directory.FullName, key, passphrase, storeCompression, cancellationToken).ConfigureAwait(false);
            await using (opened.ConfigureAwait(false))
            {
                var target = StoreAccess.RawCollection(opened, name, types.Key, types.Value);
                await ImportAsync(context.Console, target, records, cancellationToken).ConfigureAwait(false);
            }

            context.Console.MarkupLineInterpolated(CultureInfo.InvariantCulture, $"Imported {records.Count} record(s) into '{name}' ({types.Key} -> {types.Value}).");
            if (expired > 0)
            {
                context.Console.MarkupLineInterpolated(CultureInfo.InvariantCulture, $"[yellow]{expired} record(s) had expired already and were left out.[/]");
            }

            return ExitCodes.Ok;
        });
        return command;
    }

    /// <summary>Bulk-imports <paramref name="records"/> with a progress bar; a cancellation says what stays.</summary>
    internal static async Task ImportAsync(IAnsiConsole console, Collection<RawKey, RawValue> target, List<RawValue> records, CancellationToken cancellationToken)
    {
        try
        {
            await console.Progress().AutoClear(false).StartAsync(async progress =>
            {
                var task = progress.AddTask(Markup.Escape(target.Name), maxValue: Math.Max(1, records.Count));
                await target.BulkImportAsync(records, r => r.ExpiresAt, new ImportProgress(task), cancellationToken).ConfigureAwait(false);
                task.Value = task.MaxValue;
            }).ConfigureAwait(false);
        }
        catch (OperationCanceledException e)
        {
            throw new ToolException(ExitCodes.Cancelled, string.Create(CultureInfo.InvariantCulture,
                $"Import cancelled: the blocks committed before the cancellation stay in '{target.Name}' (it holds {target.Count} record(s) now). Importing the same file again upserts the rest."), e);
        }
    }

    /// <summary>The collection's recorded types (null when the store has no such collection) and the store's compression.</summary>
    private static (string? Key, string? Value, Compression Compression) Recorded(DirectoryInfo directory, string name, byte[]? key, string? passphrase)
    {
        using var inspector = StoreAccess.Inspect(directory, key, passphrase);
        var entry = inspector.Collections.FirstOrDefault(c => c.Name == name);
        return (entry?.KeyType, entry?.ValueType, (Compression)inspector.Compression);
    }

    private static void CheckTypeOptions(string? keyType, string? valueType, string? recordedKey, string? recordedValue, string name)
    {
        if ((keyType is not null && recordedKey is not null && keyType != recordedKey) || (valueType is not null && recordedValue is not null && valueType != recordedValue))
        {
            throw new ToolException(ExitCodes.BadInput, $"Collection '{name}' holds {recordedKey} -> {recordedValue}; --key-type and --value-type can only name the types of a new collection.");
        }
    }
}
