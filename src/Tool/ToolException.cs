namespace Stellar.Store.Tool;

/// <summary>A failure the tool reports as one clear message and an exit code, without a stack trace.</summary>
internal sealed class ToolException : Exception
{
    public ToolException(int exitCode, string message, Exception? innerException = null)
        : base(message, innerException) => ExitCode = exitCode;

    /// <summary>One of <see cref="ExitCodes"/>.</summary>
    public int ExitCode { get; }
}
