namespace Stellar.Store;

/// <summary>
/// Which checkpoints a store keeps after each <see cref="StellarStore.CheckpointAsync"/>: a checkpoint stays when it is
/// among the <see cref="KeepLast"/> newest, or when it is the newest of its period in a tier of
/// <see cref="Tiers"/> (for example one per hour for a day); every other checkpoint is deleted.
/// </summary>
/// <remarks>Thread safety: immutable once built.</remarks>
public sealed record CheckpointRetention
{
    /// <summary>How many of the newest checkpoints are always kept; at least 1.</summary>
    public int KeepLast { get; init; } = 1;

    /// <summary>Further checkpoints kept: per tier, the newest of each period of <see cref="CheckpointTier.Every"/> within <see cref="CheckpointTier.For"/> of now.</summary>
    public IReadOnlyList<CheckpointTier> Tiers { get; init; } = [];

    /// <summary>
    /// The checkpoints of <paramref name="checkpoints"/> this policy keeps at <paramref name="now"/>, right after
    /// <paramref name="taken"/> was taken: that one is the newest whatever its time says (the clock may have been set
    /// back since the one before, or read the same), so it is always kept.
    /// </summary>
    internal HashSet<string> Kept(IReadOnlyList<CheckpointInfo> checkpoints, DateTimeOffset now, string taken)
    {
        var newestFirst = checkpoints
            .OrderByDescending(c => string.Equals(c.Name, taken, StringComparison.Ordinal))
            .ThenByDescending(c => c.CreatedAt)
            .ThenByDescending(c => c.Name, StringComparer.Ordinal)
            .ToList();
        var kept = new HashSet<string>(newestFirst.Take(KeepLast).Select(c => c.Name), StringComparer.Ordinal);
        foreach (var tier in Tiers)
        {
            var periods = new HashSet<long>();
            foreach (var checkpoint in newestFirst)
            {
                if (now - checkpoint.CreatedAt <= tier.For && periods.Add(checkpoint.CreatedAt.UtcTicks / tier.Every.Ticks))
                {
                    kept.Add(checkpoint.Name);
                }
            }
        }

        return kept;
    }

    /// <summary>Throws when the policy cannot be applied.</summary>
    internal void Validate()
    {
        if (KeepLast < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(KeepLast), KeepLast, "A retention keeps at least the newest checkpoint (KeepLast >= 1).");
        }

        foreach (var tier in Tiers ?? throw new ArgumentNullException(nameof(Tiers)))
        {
            if (tier is null || tier.Every <= TimeSpan.Zero || tier.For < tier.Every)
            {
                throw new ArgumentOutOfRangeException(nameof(Tiers), tier, "A retention tier needs Every > 0 and For >= Every.");
            }
        }
    }
}
