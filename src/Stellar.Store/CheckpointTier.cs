namespace Stellar.Store;

/// <summary>One tier of a <see cref="CheckpointRetention"/>: keep the newest checkpoint of each period <paramref name="Every"/> long, for <paramref name="For"/>.</summary>
/// <param name="Every">The length of a period, for example one hour.</param>
/// <param name="For">How far back the tier reaches, for example one day.</param>
/// <remarks>Thread safety: immutable.</remarks>
public sealed record CheckpointTier(TimeSpan Every, TimeSpan For);
