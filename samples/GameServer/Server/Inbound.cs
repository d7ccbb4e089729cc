using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>What the tick thread takes from its inbox: requests, and results of work done off the tick.</summary>
internal abstract record Inbound
{
    /// <summary>A client's request.</summary>
    public sealed record Request(Session Session, GameProtocol.Message Message) : Inbound;

    /// <summary>A connection ended.</summary>
    public sealed record Disconnected(Session Session) : Inbound;

    /// <summary>What a login read from the store, off the tick.</summary>
    public sealed record LoginLoaded(Session Session, int RequestId, string Account, LoginState? State, Exception? Failure) : Inbound;

    /// <summary>A login's write is stored: the character exists in the store, so its session may name it.</summary>
    public sealed record LoginStored(Player Player) : Inbound;

    /// <summary>A chunk read from the store or generated, off the tick.</summary>
    public sealed record ChunkLoaded(ChunkRecord Chunk) : Inbound;

    /// <summary>A logout's final write is stored: the account may log in again.</summary>
    public sealed record LogoutStored(string Account) : Inbound;
}
