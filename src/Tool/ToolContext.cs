using Spectre.Console;

namespace Stellar.Store.Tool;

/// <summary>
/// What a run of the tool talks to: the console for messages, tables and prompts, a writer for data (export's JSON
/// Lines when no output file is given, and the help), and the environment variables. The program passes the process's own; tests
/// pass their own, so runs in parallel share nothing.
/// </summary>
/// <param name="Console">Messages, reports, progress and prompts.</param>
/// <param name="Data">Standard output as it is: export's JSON Lines when it is given no file, and the help.</param>
/// <param name="GetEnvironmentVariable">Reads an environment variable; null when it is not set.</param>
internal sealed record ToolContext(IAnsiConsole Console, TextWriter Data, Func<string, string?> GetEnvironmentVariable);
