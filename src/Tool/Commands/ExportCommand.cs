using System.CommandLine;
using System.Globalization;
using System.Text;
using MessagePack;
using Spectre.Console;
using Stellar.Store.Inspection;
using Stellar.Store.Tool.Export;

namespace Stellar.Store.Tool.Commands;

/// <summary>
/// <c>stellar export STORE COLLECTION [--output FILE]</c>: writes the collection's live records as JSON Lines, one
/// <c>{"key":…,"value":…}</c> object a line (with <c>"expiresAt"</c> for a record that expires), in key byte order,
/// through MessagePack's JSON conversion. Read-only; refuses a damaged store (salvage it first).
/// </summary>
internal static class ExportCommand
{
    public static Command Create(ToolContext context)
    {
        var command = new Command("export", "Write a collection's records as JSON Lines (read-only)");
        var store = StoreArguments.Store();
        var collection = StoreArguments.Collection("The collection to export");
        var output = new Option<FileInfo>("--output", "-o") { Description = "The file to write (must not exist); standard output when left out" };
        command.Arguments.Add(store);
        command.Arguments.Add(collection);
        command.Options.Add(output);
        var secrets = new StoreSecrets(command);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var (key, passphrase) = secrets.Read(parse, context);
            var file = parse.GetValue(output);
            if (file is { Exists: true })
            {
                throw new ToolException(ExitCodes.BadInput, $"'{file.FullName}' exists: export never overwrites a file. Choose another name or delete it.");
            }

            using var inspector = StoreAccess.Inspect(parse.GetValue(store)!, key, passphrase);
            var name = parse.GetValue(collection)!;
            var contents = StoreContents.Read(inspector, DateTimeOffset.UtcNow);
            var found = contents.FirstOrDefault(c => c.Entry.Name == name && CollectionName.IsValid(name))
                ?? throw new ToolException(ExitCodes.BadInput, $"The store has no collection '{name}'. It has: {string.Join(", ", contents.Select(c => c.Entry.Name).Where(CollectionName.IsValid))}.");
            if (contents.SelectMany(c => c.Damage).FirstOrDefault() is { } bad)
            {
                throw new ToolException(ExitCodes.Damaged, $"The store is damaged ('{bad.Path}' at offset {bad.Offset}: {bad.Problem}); export reads only sound stores. Run 'stellar salvage' and export from the new store.");
            }

            WarnOfLoss(context.Console, found.Live);
            if (file is null)
            {
                await WriteAsync(context.Data, found.Live, cancellationToken).ConfigureAwait(false);
                return ExitCodes.Ok;
            }

            var writer = CreateOutput(file);
            try
            {
                await using (writer.ConfigureAwait(false))
                {
                    await WriteAsync(writer, found.Live, cancellationToken).ConfigureAwait(false);
                }
            }
            catch
            {
                // A file cut short (Ctrl+C, a full disk) reads as a whole export of fewer records: none is left.
                file.Delete();
                throw;
            }

            context.Console.MarkupLineInterpolated(CultureInfo.InvariantCulture, $"Exported {found.Live.Count} record(s) of '{name}' to '{file.FullName}'.");
            return ExitCodes.Ok;
        });
        return command;
    }

    private static StreamWriter CreateOutput(FileInfo file)
    {
        try
        {
            return new StreamWriter(file.FullName, append: false, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ToolException(ExitCodes.BadInput, $"Cannot write '{file.FullName}': {e.Message} Give a file in a directory that exists and that you may write to.", e);
        }
    }

    /// <summary>Says, before the export, how many records JSON cannot carry back to the store as they are.</summary>
    private static void WarnOfLoss(IAnsiConsole console, IReadOnlyList<LiveRecord> records)
    {
        var lossy = records.Count(r => JsonFidelity.IsLossy(r.Key) || JsonFidelity.IsLossy(r.Value));
        if (lossy > 0)
        {
            console.MarkupLineInterpolated(CultureInfo.InvariantCulture,
                $"[yellow]warning:[/] {lossy} record(s) hold MessagePack extension values (such as DateTime), binary values (byte[[]]), map keys that are not strings or floats that are not finite (NaN): JSON writes them as strings, and an import of this file stores strings in their place.");
        }
    }

    /// <summary>
    /// Appends <paramref name="bytes"/> as JSON. MessagePack's conversion writes what JSON forbids, so that import could
    /// not read the line back: control characters other than newline, tab and the like as they are inside a string
    /// (escaped here), and a float that is not finite as <c>NaN</c>, <c>Infinity</c> or <c>-Infinity</c> (quoted here,
    /// a string, as <see cref="JsonFidelity"/> warns). It writes no whitespace and no control character outside strings.
    /// </summary>
    private static void AppendJson(StringBuilder line, ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken)
    {
        var json = MessagePackSerializer.ConvertToJson(bytes, cancellationToken: cancellationToken);
        var inString = false;
        for (var i = 0; i < json.Length; i++)
        {
            var c = json[i];
            if (inString)
            {
                if (c < ' ')
                {
                    line.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    continue;
                }

                line.Append(c);
                if (c == '\\')
                {
                    line.Append(json[++i]);
                }
                else if (c == '"')
                {
                    inString = false;
                }
            }
            else if (c is 'N' or 'I' || (c == '-' && i + 1 < json.Length && json[i + 1] == 'I'))
            {
                var end = i + 1;
                while (end < json.Length && char.IsAsciiLetter(json[end]))
                {
                    end++;
                }

                line.Append('"').Append(json, i, end - i).Append('"');
                i = end - 1;
            }
            else
            {
                line.Append(c);
                inString = c == '"';
            }
        }
    }

    private static async Task WriteAsync(TextWriter writer, IReadOnlyList<LiveRecord> records, CancellationToken cancellationToken)
    {
        var line = new StringBuilder();
        foreach (var record in records)
        {
            cancellationToken.ThrowIfCancellationRequested();
            AppendJson(line.Clear().Append("{\"key\":"), record.Key, cancellationToken);
            AppendJson(line.Append(",\"value\":"), record.Value, cancellationToken);
            if (record.ExpiresAt != 0)
            {
                line.Append(",\"expiresAt\":\"").Append(new DateTimeOffset(record.ExpiresAt, TimeSpan.Zero).ToString("O", CultureInfo.InvariantCulture)).Append('"');
            }

            await writer.WriteLineAsync(line.Append('}'), cancellationToken).ConfigureAwait(false);
        }

        await writer.FlushAsync(cancellationToken).ConfigureAwait(false);
    }
}
