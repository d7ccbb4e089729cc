using System.CommandLine;
using System.Globalization;
using Spectre.Console;
using Stellar.Store.Checkpoints;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar checkpoint list|create|restore|delete</c>: a store's checkpoints (see the store's
/// <c>CheckpointAsync</c>). <c>list</c> reads the checkpoints' descriptions without opening the store; <c>create</c> and
/// <c>delete</c> open the store (it must not be open elsewhere); <c>restore</c> makes a new store from a checkpoint and
/// changes neither the checkpoint nor the store.
/// </summary>
internal static class CheckpointCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("checkpoint", "List, create, restore or delete a store's checkpoints");
        command.Subcommands.Add(List(context));
        command.Subcommands.Add(CreateOne(context));
        command.Subcommands.Add(Restore(context));
        command.Subcommands.Add(Delete(context));
        return command;
    }

    private static Command List(ToolContext context)
    {
        var command = new Command("list", "List a store's checkpoints, oldest first (read-only)");
        var store = StoreArguments.Store();
        command.Arguments.Add(store);
        command.SetAction((parse, _) =>
        {
            var directory = parse.GetValue(store)!;
            StoreAccess.RequireStore(directory);
            var checkpoints = StellarStore.ListCheckpoints(directory.FullName);
            var invariant = CultureInfo.InvariantCulture;
            var table = new Table().AddColumns("Checkpoint", "Taken (UTC)", "Shared bytes", "Copied bytes", "Writer pause");
            foreach (var checkpoint in checkpoints)
            {
                table.AddRow(Markup.Escape(checkpoint.Name), checkpoint.CreatedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", invariant),
                    checkpoint.SharedBytes.ToString("N0", invariant), checkpoint.CopiedBytes.ToString("N0", invariant),
                    checkpoint.WriterPause.TotalMilliseconds.ToString("0.000 ms", invariant));
            }

            context.Console.Write(table);
            context.Console.WriteLine(string.Create(invariant, $"{checkpoints.Count} checkpoint(s) in {Path.Combine(directory.FullName, StellarStore.CheckpointsDirectoryName)}"));
            return Task.FromResult(ExitCodes.Ok);
        });
        return command;
    }

    private static Command CreateOne(ToolContext context) => OnOpenStore(context, "create", "Take a checkpoint of a store (the store must not be open elsewhere)", RequireNewName, async (opened, name, cancellationToken) =>
    {
        var info = await Translate(() => opened.CheckpointAsync(name, cancellationToken)).ConfigureAwait(false);
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Checkpoint '{info.Name}' taken in {info.Path}: {info.SharedBytes:N0} bytes shared, {info.CopiedBytes:N0} bytes copied."));
    });

    private static Command Restore(ToolContext context)
    {
        var command = new Command("restore", "Make a new store from a checkpoint; the checkpoint and the store stay as they are");
        var store = StoreArguments.Store();
        var name = new Argument<string>("name") { Description = "The checkpoint's name" };
        var target = new Argument<DirectoryInfo>("target") { Description = "The new store's directory: missing or empty" };
        command.Arguments.Add(store);
        command.Arguments.Add(name);
        command.Arguments.Add(target);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var checkpoint = CheckpointPath(parse.GetValue(store)!, parse.GetValue(name)!);
            StoreAccess.RequireOutside(parse.GetValue(target)!, parse.GetValue(store)!.FullName, "the store");
            var into = parse.GetValue(target)!.FullName;
            await Translate(async () =>
            {
                await StellarStore.RestoreAsync(checkpoint, into, cancellationToken).ConfigureAwait(false);
                return true;
            }).ConfigureAwait(false);
            context.Console.WriteLine($"Restored checkpoint '{parse.GetValue(name)}' into {into}.");
            return ExitCodes.Ok;
        });
        return command;
    }

    private static Command Delete(ToolContext context) => OnOpenStore(context, "delete", "Delete a checkpoint (the store must not be open elsewhere)", (store, name) => CheckpointPath(store, name), async (opened, name, _) =>
    {
        if (!await Translate(() => Task.FromResult(opened.DeleteCheckpoint(name))).ConfigureAwait(false))
        {
            throw new ToolException(ExitCodes.BadInput, $"The store has no checkpoint '{name}'.");
        }

        context.Console.WriteLine($"Deleted checkpoint '{name}'.");
    });

    /// <summary>
    /// A verb <c>VERB STORE NAME</c> that opens the store (with its key, if any) and runs <paramref name="run"/> on it.
    /// <paramref name="check"/> refuses a bad name first: an open cuts a torn tail, and a refused request changes nothing.
    /// </summary>
    private static Command OnOpenStore(ToolContext context, string verb, string description, Action<DirectoryInfo, string> check, Func<StellarStore, string, CancellationToken, Task> run)
    {
        var command = new Command(verb, description);
        var store = StoreArguments.Store();
        var name = new Argument<string>("name") { Description = "The checkpoint's name" };
        command.Arguments.Add(store);
        command.Arguments.Add(name);
        var secrets = new StoreSecrets(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            check(parse.GetValue(store)!, parse.GetValue(name)!);
            var opened = await StoreAccess.OpenKeepingCompressionAsync(parse.GetValue(store)!, key, passphrase, cancellationToken).ConfigureAwait(false);
            await using (opened.ConfigureAwait(false))
            {
                await run(opened, parse.GetValue(name)!, cancellationToken).ConfigureAwait(false);
            }

            return ExitCodes.Ok;
        });
        return command;
    }

    /// <summary>Refuses a name that breaks the rule for checkpoint names or that a checkpoint of the store has already.</summary>
    private static void RequireNewName(DirectoryInfo store, string name)
    {
        StoreAccess.RequireStore(store);
        try
        {
            CheckpointName.Validate(name);
        }
        catch (ArgumentException e)
        {
            throw new ToolException(ExitCodes.BadInput, e.Message, e);
        }

        if (Directory.Exists(Path.Combine(store.FullName, StellarStore.CheckpointsDirectoryName, name)))
        {
            throw new ToolException(ExitCodes.BadInput, $"The store has a checkpoint '{name}' already. 'stellar checkpoint list' shows its checkpoints.");
        }
    }

    private static string CheckpointPath(DirectoryInfo store, string name)
    {
        StoreAccess.RequireStore(store);
        if (!CheckpointName.IsValid(name))
        {
            // A path (.., a separator) or a name the store keeps for its own work (a checkpoint still being taken).
            throw new ToolException(ExitCodes.BadInput, $"'{name}' is not a checkpoint's name: {CheckpointName.Rule}. 'stellar checkpoint list' shows the store's checkpoints.");
        }

        var path = Path.Combine(store.FullName, StellarStore.CheckpointsDirectoryName, name);
        return Directory.Exists(path)
            ? path
            : throw new ToolException(ExitCodes.BadInput, $"The store has no checkpoint '{name}' (looked in {Path.GetDirectoryName(path)}).");
    }

    /// <summary>Runs a store call, turning its documented exceptions for bad input into the tool's.</summary>
    private static async Task<T> Translate<T>(Func<Task<T>> call)
    {
        try
        {
            return await call().ConfigureAwait(false);
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or IOException)
        {
            throw new ToolException(ExitCodes.BadInput, e.Message, e);
        }
    }
}
