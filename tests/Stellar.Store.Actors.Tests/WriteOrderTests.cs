namespace Stellar.Store.Actors.Tests;

/// <summary>The order gate of a writer: items and units are handed on in the order they entered, whatever waits.</summary>
public sealed class WriteOrderTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task AfterPendingAsync_BehindAUnit_RunsOnlyOnceTheUnitHasItsOutcomeAndInTheOrderItEntered()
    {
        var order = new WriteOrder();
        var submitted = new TaskCompletionSource();
        var outcome = new TaskCompletionSource();
        var before = order.EnterUnit(submitted.Task, outcome.Task);
        Assert.True(before.IsCompleted);
        Assert.False(order.IsClear);

        var handedOn = new List<int>();
        var items = Enumerable.Range(0, 5).Select(i => order.AfterPendingAsync(
            () =>
            {
                lock (handedOn)
                {
                    handedOn.Add(i);
                }

                return Task.CompletedTask;
            },
            CancellationToken.None)).ToList();

        submitted.SetResult();
        await Task.Delay(50);
        Assert.Empty(handedOn);

        outcome.SetResult();
        await Task.WhenAll(items).WaitAsync(Patience);
        Assert.Equal([0, 1, 2, 3, 4], handedOn);
        Assert.True(order.IsClear);
    }

    [Fact]
    public async Task EnterUnit_AfterAnItemThatWaits_WaitsForThatItemToBeHandedOn()
    {
        var order = new WriteOrder();
        var firstOutcome = new TaskCompletionSource();
        _ = order.EnterUnit(Task.CompletedTask, firstOutcome.Task);
        var write = order.AfterPendingAsync(() => Task.CompletedTask, CancellationToken.None);

        var secondSubmitted = new TaskCompletionSource();
        var before = order.EnterUnit(secondSubmitted.Task, new TaskCompletionSource().Task);
        Assert.False(before.IsCompleted);

        firstOutcome.SetResult();
        await write.WaitAsync(Patience);
        await before.WaitAsync(Patience);
    }

    [Fact]
    public async Task AfterPendingAsync_CancelledWhileWaiting_NeverRunsAndTheItemsBehindItGoOn()
    {
        var order = new WriteOrder();
        var outcome = new TaskCompletionSource();
        _ = order.EnterUnit(Task.CompletedTask, outcome.Task);
        using var cancel = new CancellationTokenSource();
        var ran = false;
        var cancelled = order.AfterPendingAsync(() => { ran = true; return Task.CompletedTask; }, cancel.Token);
        var next = order.AfterPendingAsync(() => Task.CompletedTask, CancellationToken.None);

        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.WaitAsync(Patience));
        Assert.False(next.IsCompleted);

        outcome.SetResult();
        await next.WaitAsync(Patience);
        Assert.False(ran);
        Assert.True(order.IsClear);
    }
}
