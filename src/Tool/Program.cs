using System.CommandLine;
using System.CommandLine.Help;
using Spectre.Console;
using Stellar.Store.Tool.Commands;

namespace Stellar.Store.Tool;

/// <summary>The <c>stellar</c> tool's entry point: see docs/tool.md.</summary>
internal static class Program
{
    public static Task<int> Main(string[] args) =>
        RunAsync(args, new ToolContext(AnsiConsole.Console, Console.Out, Environment.GetEnvironmentVariable), handleCtrlC: true, CancellationToken.None);

    /// <summary>
    /// Runs the tool with <paramref name="args"/> against <paramref name="context"/> and returns its exit code (see
    /// <see cref="ExitCodes"/>). Every failure the user can act on is one message on the console, never a stack trace.
    /// </summary>
    /// <param name="args">The command line, without the program's name.</param>
    /// <param name="context">The console, data writer and environment to use.</param>
    /// <param name="cancellationToken">Cancels the verb as Ctrl+C does.</param>
    public static Task<int> RunAsync(string[] args, ToolContext context, CancellationToken cancellationToken = default) =>
        RunAsync(args, context, handleCtrlC: false, cancellationToken);

    /// <param name="handleCtrlC">Whether Ctrl+C (SIGINT, SIGTERM) cancels the verb: the program's own runs only.</param>
    private static async Task<int> RunAsync(string[] args, ToolContext context, bool handleCtrlC, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(context);
        // Not a RootCommand, which names itself after the process: the tool runs as "dotnet Stellar.Store.Tool.dll".
        var root = new Command("stellar", "Inspect, verify, export, import, salvage, compact and checkpoint Stellar.Store stores.");
        root.Options.Add(new HelpOption());
        root.Options.Add(new VersionOption());
        root.Subcommands.Add(InfoCommand.Create(context));
        root.Subcommands.Add(VerifyCommand.Create(context));
        root.Subcommands.Add(ExportCommand.Create(context));
        root.Subcommands.Add(ImportCommand.Create(context));
        root.Subcommands.Add(SalvageCommand.Create(context));
        root.Subcommands.Add(CompactCommand.Create(context));
        root.Subcommands.Add(CheckpointCommand.Create(context));

        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            foreach (var error in parse.Errors)
            {
                context.Console.MarkupLineInterpolated($"[red]error:[/] {error.Message}");
            }

            context.Console.WriteLine("Run 'stellar --help' for the verbs and their options.");
            return ExitCodes.BadInput;
        }

        // Help is System.CommandLine's own layout, written as it is rather than wrapped again by the console.
        var invocation = new InvocationConfiguration
        {
            Output = context.Data,
            Error = context.Data,
            EnableDefaultExceptionHandler = false,
            ProcessTerminationTimeout = handleCtrlC ? TimeSpan.FromSeconds(5) : null,
        };
        try
        {
            return await parse.InvokeAsync(invocation, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (StoreAccess.Translated(e) is { } failure)
        {
            context.Console.MarkupLineInterpolated($"[red]error:[/] {failure.Message}");
            return failure.ExitCode;
        }
        catch (OperationCanceledException)
        {
            context.Console.MarkupLine("[yellow]cancelled[/]");
            return ExitCodes.Cancelled;
        }
    }
}
