namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>Tick work times so far, in milliseconds, and what the slowest 1% of ticks were made of on average.</summary>
internal readonly record struct TickSummary(int Ticks, double P50, double P99, double Max, int OverBudget, TickSample Slowest, int IdleCollections);
