using MessagePack;
using MessagePack.Resolvers;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// MessagePack 2 builds each type's serializer with Reflection.Emit on first use, which takes tens of
/// milliseconds per type. Building them before the first tick keeps that one-time cost out of the tick times.
/// </summary>
internal static class Warmup
{
    public static void Run()
    {
        // The store serializes records through the contractless standard resolver; the wire uses the standard one.
        var options = ContractlessStandardResolver.Options;
        RoundTrip(new CharacterRecord(1, "warmup", 1, [1]), options);
        RoundTrip(new ItemRecord(1, 1, "warmup", 1), options);
        RoundTrip(new LedgerEntry(1, 1, 1, LedgerReason.Grant, 0), options);
        RoundTrip(new TradeRecord(1, 1, 2, 1, 1, 0, 1, 2), options);
        RoundTrip(new PositionRecord(1, 0, 0), options);
        RoundTrip(new AccountRecord("warmup", 1, 1, DateTime.UtcNow), options);
        RoundTrip(new ScoreRecord(1, "warmup", 1), options);
        RoundTrip(new ChunkRecord(1, 1, [0]), options);
        MessagePackSerializer.Serialize(1L, options);
        MessagePackSerializer.Serialize("warmup", options);

        GameProtocol.Message[] messages =
        [
            new GameProtocol.Done(0), new GameProtocol.Refused(0, ""), new GameProtocol.LoggedIn(0, 1, 1, 1, false),
            new GameProtocol.Looted(0, 1, 1), new GameProtocol.Crafted(0, 1, 1), new GameProtocol.Traded(0, 1, 1),
            new GameProtocol.Explored(0, 1, 1), new GameProtocol.Scores(0, [new ScoreRecord(1, "warmup", 1)]),
        ];
        foreach (var message in messages)
        {
            Framing.Encode(message);
        }
    }

    private static void RoundTrip<T>(T record, MessagePackSerializerOptions options) =>
        MessagePackSerializer.Deserialize<T>(MessagePackSerializer.Serialize(record, options), options);
}
