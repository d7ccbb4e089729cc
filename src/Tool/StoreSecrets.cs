using System.CommandLine;
using System.Globalization;
using Spectre.Console;

namespace Stellar.Store.Tool;

/// <summary>
/// The options that say where a store's key or passphrase comes from: a file, an environment variable or a prompt,
/// never the command line itself (which other users can read in the process list and the shell keeps in its
/// history). A key is 32 bytes: the file holds them raw, or as 64 hexadecimal digits or base64 text; the variable
/// holds hexadecimal or base64.
/// </summary>
internal sealed class StoreSecrets
{
    private readonly Option<FileInfo> _keyFile;
    private readonly Option<string> _keyEnv;
    private readonly Option<FileInfo> _passphraseFile;
    private readonly Option<string> _passphraseEnv;
    private readonly Option<bool> _askPassphrase;

    /// <summary>Adds the options to <paramref name="command"/>, their names prefixed by <paramref name="prefix"/> (for a second store).</summary>
    public StoreSecrets(Command command, string prefix = "", string whose = "the store")
    {
        _keyFile = new Option<FileInfo>($"--{prefix}key-file") { Description = $"A file holding {whose}'s 32-byte key (raw, hex or base64)" };
        _keyEnv = new Option<string>($"--{prefix}key-env") { Description = $"The environment variable holding {whose}'s key (hex or base64)" };
        _passphraseFile = new Option<FileInfo>($"--{prefix}passphrase-file") { Description = $"A file whose first line is {whose}'s passphrase" };
        _passphraseEnv = new Option<string>($"--{prefix}passphrase-env") { Description = $"The environment variable holding {whose}'s passphrase" };
        _askPassphrase = new Option<bool>($"--{prefix}ask-passphrase") { Description = $"Prompt for {whose}'s passphrase" };
        foreach (var option in new Option[] { _keyFile, _keyEnv, _passphraseFile, _passphraseEnv, _askPassphrase })
        {
            command.Options.Add(option);
        }
    }

    /// <summary>
    /// The key or passphrase the options name (both null when none does). Throws <see cref="ToolException"/> when more
    /// than one is given, or the one given cannot be read.
    /// </summary>
    public (byte[]? Key, string? Passphrase) Read(ParseResult parse, ToolContext context)
    {
        var keyFile = parse.GetValue(_keyFile);
        var keyEnv = parse.GetValue(_keyEnv);
        var passphraseFile = parse.GetValue(_passphraseFile);
        var passphraseEnv = parse.GetValue(_passphraseEnv);
        var ask = parse.GetValue(_askPassphrase);
        var given = new object?[] { keyFile, keyEnv, passphraseFile, passphraseEnv }.Count(o => o is not null) + (ask ? 1 : 0);
        if (given > 1)
        {
            throw new ToolException(ExitCodes.BadInput, $"Give one of {_keyFile.Name}, {_keyEnv.Name}, {_passphraseFile.Name}, {_passphraseEnv.Name} and {_askPassphrase.Name}, not several.");
        }

        if (keyFile is not null)
        {
            return (ReadKeyFile(keyFile), null);
        }

        if (keyEnv is not null)
        {
            var text = context.GetEnvironmentVariable(keyEnv)
                ?? throw new ToolException(ExitCodes.BadInput, $"The environment variable {keyEnv} ({_keyEnv.Name}) is not set.");
            return (ParseKeyText(text, $"the environment variable {keyEnv}"), null);
        }

        if (passphraseFile is not null)
        {
            var line = ReadFile(passphraseFile, File.ReadAllLines).FirstOrDefault();
            return (null, string.IsNullOrEmpty(line) ? throw new ToolException(ExitCodes.BadInput, $"The passphrase file '{passphraseFile.FullName}' is empty.") : line);
        }

        if (passphraseEnv is not null)
        {
            var text = context.GetEnvironmentVariable(passphraseEnv);
            return (null, string.IsNullOrEmpty(text) ? throw new ToolException(ExitCodes.BadInput, $"The environment variable {passphraseEnv} ({_passphraseEnv.Name}) is not set or empty.") : text);
        }

        if (ask)
        {
            if (!context.Console.Profile.Capabilities.Interactive)
            {
                throw new ToolException(ExitCodes.BadInput, $"{_askPassphrase.Name} needs a terminal to ask on, and the tool's input is not one (it is redirected, or the tool runs in a script). Give the passphrase with {_passphraseFile.Name} or {_passphraseEnv.Name}.");
            }

            var passphrase = context.Console.Prompt(new TextPrompt<string>("Passphrase:").Secret());
            return (null, passphrase);
        }

        return (null, null);
    }

    private static byte[] ReadKeyFile(FileInfo file)
    {
        var bytes = ReadFile(file, File.ReadAllBytes);
        if (bytes.Length == 32)
        {
            return bytes;
        }

        return ParseKeyText(System.Text.Encoding.ASCII.GetString(bytes), $"the key file '{file.FullName}'");
    }

    private static T ReadFile<T>(FileInfo file, Func<string, T> read)
    {
        try
        {
            return read(file.FullName);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ToolException(ExitCodes.BadInput, $"Cannot read '{file.FullName}': {e.Message}", e);
        }
    }

    private static byte[] ParseKeyText(string text, string source)
    {
        text = text.Trim();
        byte[]? key = null;
        if (text.Length == 64 && text.All(Uri.IsHexDigit))
        {
            key = Convert.FromHexString(text);
        }
        else
        {
            var buffer = new byte[48];
            if (Convert.TryFromBase64String(text, buffer, out var written) && written == 32)
            {
                key = buffer[..32];
            }
        }

        return key ?? throw new ToolException(ExitCodes.BadInput, string.Create(CultureInfo.InvariantCulture,
            $"{char.ToUpperInvariant(source[0])}{source[1..]} does not hold a 32-byte key: give 32 raw bytes (a file only), 64 hexadecimal digits or base64 text."));
    }
}
