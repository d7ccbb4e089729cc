using System.Net;

namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>The command line's options, parsed.</summary>
internal sealed record RunOptions
{
    public const int DefaultServePort = 7777;

    /// <summary>2 MiB: under the workstation GC's usual gen0 budget (sized from the CPU cache), so allocations rarely force a collection inside a tick.</summary>
    public const long DefaultIdleCollectBytes = 2 << 20;

    /// <summary>30 s: a crashed server's players show as online for at most this long after the crash.</summary>
    public static readonly TimeSpan DefaultSessionLease = TimeSpan.FromSeconds(30);

    public int Bots { get; init; } = 200;

    public TimeSpan Duration { get; init; } = TimeSpan.FromSeconds(30);

    public IPAddress Bind { get; init; } = IPAddress.Loopback;

    /// <summary>The TCP port; 0 lets the OS pick a free one.</summary>
    public int Port { get; init; }

    /// <summary>The store directory; null: a fresh temporary directory, deleted at the end.</summary>
    public string? DataDirectory { get; init; }

    public Durability Durability { get; init; } = Durability.WriteThrough;

    public bool NoPersistence { get; init; }

    /// <summary>Allocated bytes after which the tick loop collects gen0 between two ticks; 0 leaves the GC alone.</summary>
    public long IdleCollectBytes { get; init; } = DefaultIdleCollectBytes;

    /// <summary>How long a player's session lasts unless the server renews it (it does so every third of it).</summary>
    public TimeSpan SessionLease { get; init; } = DefaultSessionLease;

    /// <summary>Where <c>--metrics</c> sends the store's instruments.</summary>
    public MetricsExport Metrics { get; init; }

    /// <summary>How often the run takes a checkpoint of the store while the bots play; null: never.</summary>
    public TimeSpan? CheckpointEvery { get; init; }

    /// <summary>How many pairs of runs <c>--compare</c> plays (without, then with the store).</summary>
    public int Pairs { get; init; } = 1;
}
