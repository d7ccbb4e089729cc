namespace Stellar.Store;

/// <summary>What a completed write survives. See docs/durability.md.</summary>
public enum Durability
{
    /// <summary>Nothing is promised until <see cref="StellarStore.FlushAsync"/>: writes gather in memory (up to 1 MiB per collection) before they reach the OS.</summary>
    Buffered,

    /// <summary>The default. A completed write survives a crash of the process (kill -9): its block was handed to the OS before the task completed.</summary>
    WriteThrough,

    /// <summary>A completed write survives a crash of the machine (power loss): one fsync covers every write of a commit group.</summary>
    Fsync,
}
