using Stellar.Store.Samples.GameServer.Model;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>What the store holds for an account at login; null members for a new account.</summary>
internal sealed record LoginState(AccountRecord? Account, CharacterRecord? Character, PositionRecord? Position, IReadOnlyList<ItemRecord> Items, long BestScore);
