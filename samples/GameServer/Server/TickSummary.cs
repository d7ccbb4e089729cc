namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>Tick work times so far, in milliseconds.</summary>
internal readonly record struct TickSummary(int Ticks, double P50, double P99, double Max, int OverBudget);
