using System.Diagnostics;
using Stellar.Store.Samples.GameServer.Model;
using Stellar.Store.Samples.GameServer.Persistence;
using Stellar.Store.Samples.GameServer.Protocol;

namespace Stellar.Store.Samples.GameServer.Server;

/// <summary>
/// Logins and logouts: an account is loaded off the tick, joins the world on it, holds a session while online, and
/// leaves with a final write.
/// </summary>
internal sealed partial class World
{
    private const int MaxAccountLength = 32;

    /// <summary>
    /// Ticks between two writes of a session: a third of the lease, so that a renewal may come a whole period late and
    /// the session still not lapse while its player is online.
    /// </summary>
    public static int SessionRenewalTicks(TimeSpan lease) => (int)Math.Max(1, lease.Ticks / TcpGameServer.TickPeriod.Ticks / 3);

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

    /// <summary>Off the tick: point reads of the account, character, position and score, and a query for the items.</summary>
    private LoginState Load(string account)
    {
        var record = _store.GetAccount(account);
        var character = record is null ? null : _store.GetCharacter(record.CharacterId);
        var position = character is null ? null : _store.GetPosition(character.Id);
        var items = character is null ? Array.Empty<ItemRecord>() : _store.ItemsOwnedBy(character.Id);
        var score = character is null ? null : _store.GetScore(character.Id);
        return new LoginState(record, character, position, items, score?.Score ?? 0);
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

        if (state.Account is { } stored && state.Character is null)
        {
            // Never written by this game: an account and its character are one unit. Refused rather than papered over.
            session.Send(new GameProtocol.Refused(loaded.RequestId, $"account '{stored.Name}' has no character {stored.CharacterId} in the store"));
            return;
        }

        var now = DateTime.UtcNow;
        Player player;
        Task write;
        var created = state.Character is null;
        if (state.Character is { } character)
        {
            // The inventory says which items the character carries; the query returned them with their details. A
            // character that never had its position written (a crash came first) starts at a new spawn point.
            var owned = state.Items.ToDictionary(i => i.Id);
            var position = state.Position ?? Spawn(character.Id);
            player = new Player(character, position, character.Inventory.Where(owned.ContainsKey).Select(id => owned[id]), state.BestScore, session)
            {
                LoggedInUtc = now,
            };

            // A plain write to a collection that units write too: safe because the account's creation unit, and every
            // unit of its last session, were stored before this login could begin (see LeaveWorld).
            Debug.Assert(state.Account is not null, "a character is only read through its account");
            write = _store.UpsertAccountAsync(new AccountRecord(loaded.Account, player.Id, state.Account.Logins + 1, now));
        }
        else
        {
            // A new account: the account, its character and the starting gold (a ledger entry like any other gold) are
            // one unit, so a crash never leaves an account without its character or a character without its account.
            var id = NextId();
            var record = new CharacterRecord(id, loaded.Account, StartingGold, Array.Empty<long>());
            player = new Player(record, Spawn(id), Array.Empty<ItemRecord>(), 0, session) { LoggedInUtc = now, Moved = true };
            write = Write(
                new GameUnit()
                    .Insert(new AccountRecord(loaded.Account, id, 1, now))
                    .Insert(record)
                    .Insert(new LedgerEntry(NextId(), id, StartingGold, LedgerReason.Grant, 0)),
                player);
        }

        player.LoginWrite = write;
        session.Player = player;
        _online.Add(player.Name, player);
        _players.Add(player);
        Volatile.Write(ref _onlineCount, _players.Count);
        var reply = new GameProtocol.LoggedIn(loaded.RequestId, player.Id, player.Gold, player.Items.Count, created);
        _writes.Track(write, WriteKind.Login, () =>
        {
            session.Send(reply);
            Post(new Inbound.LoginStored(player));
        });
    }

    /// <summary>
    /// The first write of the player's session, once its login write is stored: for a new character that write is the
    /// unit that creates it, and a session issued with it could be stored first (the store does not order a plain write
    /// with a unit), so a crash between the two would leave a session of a character that does not exist.
    /// </summary>
    private void StartSession(Player player)
    {
        if (!ReferenceEquals(player.Session.Player, player))
        {
            return; // it left before its login was stored, and the logout deleted whatever session it had
        }

        player.HasSession = true;
        WriteSession(player);
    }

    /// <summary>Writes the player's session with a fresh lease, not awaited.</summary>
    private void WriteSession(Player player)
    {
        var write = _store.UpsertSessionAsync(new SessionRecord(player.Id, player.Name, player.LoggedInUtc, RunId), _sessionLease);
        _writes.Track(write, WriteKind.Session, static () => { });
    }

    /// <summary>
    /// Issues <paramref name="write"/> once <paramref name="player"/>'s login write is stored (at once when it is): a plain
    /// write that names a new character may otherwise be stored before the unit that creates it.
    /// </summary>
    private static async Task AfterLoginAsync(Player player, Func<Task> write)
    {
        await player.LoginWrite.ConfigureAwait(false);
        await write().ConfigureAwait(false);
    }

    private PositionRecord Spawn(long characterId) =>
        new(characterId, _random.Next(WorldChunks.WorldSize), _random.Next(WorldChunks.WorldSize));

    /// <summary>
    /// Writes the character's position, deletes its session and takes it out of the world; <paramref name="reply"/>
    /// follows once these writes, and every write of the session that a login reads, are stored.
    /// </summary>
    private void LeaveWorld(Player player, GameProtocol.Message? reply)
    {
        _online.Remove(player.Name);
        _players.Remove(player);
        Volatile.Write(ref _onlineCount, _players.Count);
        player.Session.Player = null;

        // Until every write of the session that a login reads is stored (the account, the character and its items, the
        // position, the best score), a new login of the account would read the state from before it: a best score lower
        // than the one stored after, which the next session's scores then overwrite, or a login count that the next
        // login's count overwrites; and its account write could overtake the unit that created the account. Units are
        // stored in order, so the last one that changed the character stands for all of them, and plain writes to one
        // collection are too, so the last score write stands for every score write. The session's delete goes even when
        // this login wrote no session yet (a crash may have left one of an earlier run, live until its lease ends); it
        // follows every renewal. The position waits for the login's write, as the tick's position writes do.
        _busyAccounts.Add(player.Name);
        var position = player.ToPosition();
        var write = Task.WhenAll(
            AfterLoginAsync(player, () => _store.UpsertPositionAsync(position)), _store.DeleteSessionAsync(player.Id), player.LastUnit, player.LoginWrite, player.LastScore);
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
