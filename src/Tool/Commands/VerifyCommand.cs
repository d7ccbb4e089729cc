using System.CommandLine;
using System.Globalization;
using Spectre.Console;
using Stellar.Store.Inspection;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar verify STORE</c>: reads every block of every collection and checks it as an open does (header,
/// checksum, authentication, decompression, record framing, ids, sequence order, sealed lengths), reporting each bad
/// block with its file and offset. Exit code 0 when the store is sound, 1 when something is damaged. Never changes
/// the store: it reads the files without opening the store, so a torn tail is reported (an open would cut it), not cut.
/// </summary>
internal static class VerifyCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("verify", "Read and check every block of a store and report each bad one with file and offset (read-only; exit code 1 when damaged)");
        var store = StoreArguments.Store();
        command.Arguments.Add(store);
        var secrets = new StoreSecrets(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            using var inspector = StoreAccess.Inspect(parse.GetValue(store)!, key, passphrase);
            return Task.FromResult(Verify(context.Console, inspector, cancellationToken));
        });
        return command;
    }

    private static int Verify(IAnsiConsole console, StoreInspector inspector, CancellationToken cancellationToken)
    {
        var invariant = CultureInfo.InvariantCulture;
        long good = 0, damaged = 0, records = 0;
        foreach (var collection in inspector.Collections)
        {
            cancellationToken.ThrowIfCancellationRequested();
            foreach (var block in inspector.ReadCollection(collection, keepRecords: false))
            {
                if (block.IsGood)
                {
                    good++;
                    records += block.Header!.Value.RecordCount;
                }
                else if (block.IsTornTail)
                {
                    console.MarkupLineInterpolated($"[yellow]TORN[/] {block.Path} offset {block.Offset}: {block.Length} bytes after the last whole block ({block.Problem}); the next open cuts them, as after a crash in the middle of a write");
                }
                else
                {
                    damaged++;
                    var claim = block.Header is { } h ? string.Create(invariant, $", its header claims {h.RecordCount} record(s)") : "";
                    console.MarkupLineInterpolated($"[red]BAD[/]  {block.Path} offset {block.Offset}: {block.Problem} ({block.Length} bytes{claim})");
                }
            }
        }

        console.MarkupLineInterpolated(CultureInfo.InvariantCulture,
            $"{inspector.Collections.Count} collection(s), {good} good block(s) holding {records} record(s), {damaged} bad block(s).");
        if (damaged > 0)
        {
            console.MarkupLine("[red]The store is damaged.[/] An open refuses it; 'stellar salvage' copies every verifiable record into a new store.");
            return ExitCodes.Damaged;
        }

        console.MarkupLine("[green]The store is sound.[/]");
        return ExitCodes.Ok;
    }
}
