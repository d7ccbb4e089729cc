using System.CommandLine;
using System.Globalization;
using Spectre.Console;
using Stellar.Store.Inspection;
using Stellar.Store.Tool.Raw;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar salvage DAMAGED NEW</c>: copies every record of a damaged store that its verifiable blocks still hold
/// into a new store, collection by collection with their recorded types, and reports what was lost: each bad block
/// with file, offset and the records its header claims. Reads the damaged store without opening it and never writes
/// to it. The new store gets the damaged one's compression and the same key or passphrase.
/// </summary>
internal static class SalvageCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("salvage", "Copy every verifiable record of a damaged store into a new store and report what was lost (the damaged store is only read)");
        var damaged = StoreArguments.Store("The damaged store (only read)");
        var target = new Argument<DirectoryInfo>("new") { Description = "The new store's directory: must not exist, or be empty" };
        command.Arguments.Add(damaged);
        command.Arguments.Add(target);
        var secrets = new StoreSecrets(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            var source = parse.GetValue(damaged)!;
            var destination = parse.GetValue(target)!;
            StoreAccess.RequireNotAFile(destination);
            if (destination.Exists && destination.EnumerateFileSystemInfos().Any())
            {
                throw new ToolException(ExitCodes.BadInput, $"'{destination.FullName}' is not empty: salvage writes a new store and never into an existing directory.");
            }

            IReadOnlyList<CollectionContents> contents;
            Compression compression;
            using (var inspector = StoreAccess.Inspect(source, key, passphrase))
            {
                StoreAccess.RequireOutside(destination, inspector.Directory, "the damaged one");

                contents = StoreContents.Read(inspector, DateTimeOffset.UtcNow);
                compression = (Compression)inspector.Compression;
            }

            var copied = await CopyAsync(context.Console, destination.FullName, contents, key, passphrase, compression, cancellationToken).ConfigureAwait(false);
            return Report(context.Console, contents, copied, destination.FullName);
        });
        return command;
    }

    private static async Task<Dictionary<string, int>> CopyAsync(IAnsiConsole console, string destination, IReadOnlyList<CollectionContents> contents,
        byte[]? key, string? passphrase, Compression compression, CancellationToken cancellationToken)
    {
        var copied = new Dictionary<string, int>(StringComparer.Ordinal);
        var store = await StoreAccess.OpenAsync(destination, key, passphrase, compression, cancellationToken).ConfigureAwait(false);
        await using (store.ConfigureAwait(false))
        {
            foreach (var collection in contents.Where(c => CollectionName.IsValid(c.Entry.Name)))
            {
                var target = StoreAccess.RawCollection(store, collection.Entry.Name, collection.Entry.KeyType, collection.Entry.ValueType);

                // A record may expire between the read and the write; the store refuses to write one that has.
                var soon = DateTimeOffset.UtcNow.AddSeconds(5).UtcTicks;
                var records = collection.Live.Where(r => r.ExpiresAt == 0 || r.ExpiresAt > soon)
                    .Select(r => new RawValue(r.Value, new RawKey(r.Key), r.ExpiresAt == 0 ? null : new DateTimeOffset(r.ExpiresAt, TimeSpan.Zero)))
                    .ToList();
                await ImportCommand.ImportAsync(console, target, records, cancellationToken).ConfigureAwait(false);
                copied[collection.Entry.Name] = records.Count;
            }
        }

        return copied;
    }

    private static int Report(IAnsiConsole console, IReadOnlyList<CollectionContents> contents, Dictionary<string, int> copied, string destination)
    {
        var invariant = CultureInfo.InvariantCulture;
        foreach (var (name, count) in copied)
        {
            console.MarkupLineInterpolated(invariant, $"'{name}': {count} record(s) copied.");
        }

        var lost = contents.SelectMany(c => c.Damage.Select(b => (c.Entry.Name, Block: b))).ToList();
        foreach (var (name, block) in lost)
        {
            var claim = block.Header is { } h ? string.Create(invariant, $"{h.RecordCount} record(s) by its header") : "records unknown";
            console.MarkupLineInterpolated(invariant, $"[red]LOST[/] '{name}': {block.Path} offset {block.Offset}, {block.Length} bytes ({claim}): {block.Problem}");
        }

        foreach (var tail in contents.Select(c => (c.Entry.Name, Tail: c.TornTail)).Where(t => t.Tail is not null))
        {
            console.MarkupLineInterpolated(invariant, $"[yellow]torn tail[/] '{tail.Name}': {tail.Tail!.Path} offset {tail.Tail.Offset}, {tail.Tail.Length} bytes of an unfinished write, left out as an open leaves them out.");
        }

        foreach (var collection in contents.Where(c => c.UndecidedBlocks > 0))
        {
            console.MarkupLineInterpolated(invariant, $"'{collection.Entry.Name}': {collection.UndecidedBlocks} block(s) of writes across collections that never committed, left out as an open leaves them out.");
        }

        console.MarkupLineInterpolated($"New store: {destination}");
        if (lost.Count == 0)
        {
            console.MarkupLine("[green]Nothing was lost.[/]");
            return ExitCodes.Ok;
        }

        console.MarkupLineInterpolated(invariant, $"[red]{lost.Count} bad block(s) could not be read.[/] The records they held are lost; a key whose later put or delete was in one has its last version before it.");
        if (lost.Any(l => l.Name == CollectionName.UnitLog))
        {
            console.MarkupLine("[red]The log of writes across collections was damaged[/]: such writes whose decision was lost were left out.");
        }

        return ExitCodes.Damaged;
    }
}
