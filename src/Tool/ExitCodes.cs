namespace Stellar.Store.Tool;

/// <summary>The tool's exit codes, as docs/tool.md lists them.</summary>
internal static class ExitCodes
{
    /// <summary>Done, and nothing was found wrong.</summary>
    public const int Ok = 0;

    /// <summary>The store is damaged: verify found bad blocks, a verb refused a damaged store, or salvage lost records.</summary>
    public const int Damaged = 1;

    /// <summary>The command line or an input file is wrong; nothing was changed.</summary>
    public const int BadInput = 2;

    /// <summary>The store cannot be opened: wrong or missing key, locked by another process, not a store, newer format.</summary>
    public const int CannotOpen = 3;

    /// <summary>Cancelled (Ctrl+C).</summary>
    public const int Cancelled = 130;
}
