using System.CommandLine;
using System.Globalization;
using Spectre.Console;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar compact STORE [--collection NAME]</c>: opens the store (as a game server would, recovering it), and
/// compacts every collection or the one named, rewriting the live records of shards with dead bytes, then reports
/// the shard bytes before and after. The store must not be open elsewhere.
/// </summary>
internal static class CompactCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("compact", "Compact a store's collections: rewrite live records and drop dead ones");
        var store = StoreArguments.Store();
        var only = new Option<string>("--collection", "-c") { Description = "Compact only this collection" };
        command.Arguments.Add(store);
        command.Options.Add(only);
        var secrets = new StoreSecrets(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            var name = parse.GetValue(only);
            if (name is not null)
            {
                // Before the open, which cuts a torn tail: a refused request changes nothing.
                RequireCollection(parse.GetValue(store)!, key, passphrase, name);
            }

            var opened = await StoreAccess.OpenKeepingCompressionAsync(parse.GetValue(store)!, key, passphrase, cancellationToken).ConfigureAwait(false);
            await using (opened.ConfigureAwait(false))
            {
                var collections = opened.RecordedCollections.Where(c => name is null || c.Name == name).ToList();
                var table = new Table().AddColumns("Collection", "Records", "Stored bytes before", "Stored bytes after", "Live bytes");
                foreach (var (collectionName, keyType, valueType) in collections)
                {
                    var collection = StoreAccess.RawCollection(opened, collectionName, keyType, valueType);
                    var before = collection.Statistics;
                    await collection.CompactAsync(cancellationToken).ConfigureAwait(false);
                    var after = collection.Statistics;
                    var invariant = CultureInfo.InvariantCulture;
                    table.AddRow(Markup.Escape(collectionName), after.Count.ToString("N0", invariant), before.StoredBytes.ToString("N0", invariant),
                        after.StoredBytes.ToString("N0", invariant), after.LiveBytes.ToString("N0", invariant));
                }

                context.Console.Write(table);
                context.Console.WriteLine("Stored and live bytes are record bytes before compression (see Collection.Statistics).");
            }

            return ExitCodes.Ok;
        });
        return command;
    }

    private static void RequireCollection(DirectoryInfo directory, byte[]? key, string? passphrase, string name)
    {
        using var inspector = StoreAccess.Inspect(directory, key, passphrase);
        var names = inspector.Collections.Select(c => c.Name).Where(CollectionName.IsValid).ToList();
        if (!names.Contains(name, StringComparer.Ordinal))
        {
            throw new ToolException(ExitCodes.BadInput, $"The store has no collection '{name}'. It has: {string.Join(", ", names)}.");
        }
    }
}
