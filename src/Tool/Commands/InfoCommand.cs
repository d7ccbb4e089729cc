using System.CommandLine;
using System.Globalization;
using Spectre.Console;
using Stellar.Store.Inspection;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar info STORE</c>: the store's format, compression and encryption, and per collection its types, live
/// records, shards, bytes on disk and live record bytes. Read-only: it reads the files and replays them as an open
/// would, without opening the store.
/// </summary>
internal static class InfoCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("info", "Show a store's collections, records, stored and live bytes, shards, format and encryption (read-only)");
        var store = StoreArguments.Store();
        command.Arguments.Add(store);
        var secrets = new StoreSecrets(command);
        command.SetAction((parse, _) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            using var inspector = StoreAccess.Inspect(parse.GetValue(store)!, key, passphrase);
            var contents = StoreContents.Read(inspector, DateTimeOffset.UtcNow);
            return Task.FromResult(Print(context.Console, inspector, contents));
        });
        return command;
    }

    private static int Print(IAnsiConsole console, StoreInspector inspector, IReadOnlyList<CollectionContents> contents)
    {
        var invariant = CultureInfo.InvariantCulture;
        console.MarkupLineInterpolated($"Store        {inspector.Directory}");
        console.MarkupLineInterpolated($"Format       {inspector.FormatVersion} (manifest generation {inspector.Generation})");
        console.MarkupLineInterpolated($"Compression  {((Compression)inspector.Compression == Compression.Lz4 ? "LZ4" : "none")}");
        console.MarkupLineInterpolated($"Encryption   {inspector.Kdf switch
        {
            null => "none",
            "raw" => "AES-256-GCM, 32-byte key",
            var kdf => $"AES-256-GCM, passphrase ({kdf})",
        }}");

        var table = new Table().AddColumns("Collection", "Key -> value", "Records", "Shards", "Stored bytes", "Live bytes");
        foreach (var collection in contents.Where(c => CollectionName.IsValid(c.Entry.Name)))
        {
            var stored = collection.Entry.Shards.Sum(id => FileLength(inspector.ShardPath(collection.Entry, id)));
            var live = collection.Live.Sum(r => (long)r.Key.Length + r.Value.Length);
            table.AddRow(
                Markup.Escape(collection.Entry.Name),
                Markup.Escape($"{collection.Entry.KeyType} -> {collection.Entry.ValueType}"),
                collection.Live.Count.ToString("N0", invariant),
                collection.Entry.Shards.Count.ToString(invariant),
                stored.ToString("N0", invariant),
                live.ToString("N0", invariant));
        }

        console.Write(table);
        console.WriteLine("Stored bytes: the collection's shard files. Live bytes: the keys and values a reader sees (MessagePack, before compression).");

        var damage = contents.SelectMany(c => c.Damage).ToList();
        foreach (var tail in contents.Select(c => c.TornTail).OfType<InspectedBlock>())
        {
            console.MarkupLineInterpolated($"[yellow]torn tail[/] of {tail.Length} bytes at offset {tail.Offset} of '{tail.Path}': the next open cuts it.");
        }

        if (damage.Count > 0)
        {
            console.MarkupLineInterpolated($"[red]The store is damaged[/]: {damage.Count} bad block(s). Run 'stellar verify' for each, and 'stellar salvage' to copy what is intact.");
            return ExitCodes.Damaged;
        }

        return ExitCodes.Ok;
    }

    private static long FileLength(string path) => File.Exists(path) ? new FileInfo(path).Length : 0;
}
