using Stellar.Store.Tests.Api;

namespace Stellar.Store.Tests.Feed;

/// <summary>
/// The ways a caller spells <see cref="Collection{TKey,TValue}.Changes(ChangePosition, CancellationToken)"/> and its
/// cursor-name overload: this file compiles only while each form binds to one overload (the <c>default</c> literal and
/// no argument at all to the position's, as <see cref="ChangePosition.Start"/>), and each form reads what it names.
/// </summary>
public sealed class ChangesCallFormsTests
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task Changes_WithNoPositionOrTheDefaultLiteral_StartsAtTheStartLikeChangePositionStart()
    {
        await using var store = await StellarStore.OpenAsync(new MemoryStorage(), new StoreOptions { Durability = Durability.WriteThrough });
        var accounts = store.GetCollection<int, Account>("accounts", a => a.Id);
        for (var i = 1; i <= 3; i++)
        {
            await accounts.UpsertAsync(new Account(i, i * 10));
        }

        using var guard = new CancellationTokenSource(HangGuard);
        var token = guard.Token;
        int[] all = [1, 2, 3];
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(ChangePosition.Start), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(default), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(default, token), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(from: default), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(cancellationToken: token), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes(default(ChangePosition)), 3));

        // The cursor-name overload, by a name: a new cursor starts at the start too, and a null name is refused.
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes("fresh"), 3));
        Assert.Equal(all, await FeedReading.ReadKeysAsync(accounts.Changes("fresh", token), 3));
        Assert.Throws<ArgumentNullException>(() => accounts.Changes(default(string)!));
    }
}
