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
        EconomyRecord[] records =
        [
            new CharacterRecord(1, "warmup", 1, 0, 0, [1]),
            new ItemRecord(1, 1, "warmup", 1),
            new LedgerEntry(1, 1, 1, LedgerReason.Grant, 0),
            new TradeRecord(1, 1, 2, 1, 1, 0, 1, 2),
        ];
        foreach (var record in records)
        {
            MessagePackSerializer.Deserialize<EconomyRecord>(MessagePackSerializer.Serialize(record, options), options);
            MessagePackSerializer.Serialize(record.Key, options);
        }

        MessagePackSerializer.Serialize(new AccountRecord("warmup", 1, 1, DateTime.UtcNow), options);
        MessagePackSerializer.Serialize(new ScoreRecord(1, "warmup", 1), options);
        MessagePackSerializer.Serialize(new ChunkRecord(1, 1, [0]), options);

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
}
