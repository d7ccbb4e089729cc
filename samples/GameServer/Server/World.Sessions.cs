using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>Logins and logouts: an account is loaded off the tick, joins the world on it, and leaves with a final write.</summary>
internal sealed partial class World
{
    private const int MaxAccountLength = 32;

    private void BeginLogin(Session session, GameProtocol.Login login)
    {
        var account = login.Account;
        if (session.Player is not null || session.LoggingIn)
        {
            session.Send(new GameProtocol.Refused(login.RequestId, "already logged in"));
            return;
        }

        if (string.IsNullOrWhiteSpace(account) || account.Length > MaxAccountLength)
        {
            session.Send(new GameProtocol.Refused(login.RequestId, "bad account name"));
            return;
        }

        // An account that is online, loading, or still writing its logout cannot log in twice.
        if (!_busyAccounts.Add(account) || _online.ContainsKey(account))
        {
            session.Send(new GameProtocol.Refused(login.RequestId, "account busy"));
            return;
        }

        session.LoggingIn = true;
        _ = Task.Run(() =>
        {
            try
            {
                Post(new Inbound.LoginLoaded(session, login.RequestId, account, Load(account), null));
            }
            catch (Exception e)
            {
                Post(new Inbound.LoginLoaded(session, login.RequestId, account, null, e));
            }
        });
    }

    /// <summary>Off the tick: point reads of the account, character and score, and a query for the items.</summary>
    private LoginState Load(string account)
    {
        var record = _store.GetAccount(account);
        var character = record is null ? null : _store.GetCharacter(record.CharacterId);
        var items = character is null ? Array.Empty<ItemRecord>() : _store.ItemsOwnedBy(character.Id);
        var score = character is null ? null : _store.GetScore(character.Id);
        return new LoginState(record, character, items, score?.Score ?? 0);
    }

    private void CompleteLogin(Inbound.LoginLoaded loaded)
    {
        var session = loaded.Session;
        session.LoggingIn = false;
        _busyAccounts.Remove(loaded.Account);
        if (loaded.State is not { } state)
        {
            session.Send(new GameProtocol.Refused(loaded.RequestId, "login failed: " + loaded.Failure?.Message));
            return;
        }

        if (session.Closed)
        {
            return;
        }

        var now = DateTime.UtcNow;
        Player player;
        Task economy;
        var created = state.Character is null;
        if (state.Character is { } character)
        {
            // The inventory says which items the character carries; the query returned them with their details.
            var owned = state.Items.ToDictionary(i => i.Id);
            player = new Player(character, character.Inventory.Where(owned.ContainsKey).Select(id => owned[id]), state.BestScore, session);
            economy = Task.CompletedTask;
        }
        else
        {
            // A new character (or an account whose character a crash lost before it was stored): starting gold is a
            // ledger entry like any other gold, in the same atomic batch as the character.
            var id = state.Account?.CharacterId ?? NextId();
            var record = new CharacterRecord(id, loaded.Account, StartingGold, _random.Next(WorldChunks.WorldSize), _random.Next(WorldChunks.WorldSize), Array.Empty<long>());
            player = new Player(record, Array.Empty<ItemRecord>(), 0, session);
            economy = _store.WriteEconomyAsync(new EconomyBatch()
                .Insert(record)
                .Insert(new LedgerEntry(NextId(), id, StartingGold, LedgerReason.Grant, 0)));
        }

        var account = new AccountRecord(loaded.Account, player.Id, (state.Account?.Logins ?? 0) + 1, now);
        var write = Task.WhenAll(economy, _store.UpsertAccountAsync(account));
        session.Player = player;
        _online.Add(player.Name, player);
        _players.Add(player);
        Volatile.Write(ref _onlineCount, _players.Count);
        ReplyWhenStored(write, WriteKind.Login, session, new GameProtocol.LoggedIn(loaded.RequestId, player.Id, player.Gold, player.Items.Count, created));
    }

    /// <summary>Writes the character's final state and takes it out of the world; <paramref name="reply"/> follows the write.</summary>
    private void LeaveWorld(Player player, GameProtocol.Message? reply)
    {
        _online.Remove(player.Name);
        _players.Remove(player);
        Volatile.Write(ref _onlineCount, _players.Count);
        player.Session.Player = null;

        // Until this write is stored, a new login of the account would read the state from before it.
        _busyAccounts.Add(player.Name);
        var write = _store.WriteEconomyAsync(new EconomyBatch().Upsert(player.ToRecord()));
        var session = player.Session;
        var account = player.Name;
        _writes.Track(write, WriteKind.Logout, () =>
        {
            if (reply is not null)
            {
                session.Send(reply);
            }

            Post(new Inbound.LogoutStored(account));
        });
    }
}
