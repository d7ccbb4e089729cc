namespace Stellar.Store.Actors.Tests;

/// <summary>Waits, within a bound, for a caller's task that must fail: a writer that left its caller waiting fails the test.</summary>
internal static class Answered
{
    /// <summary>Long enough for any answer on a loaded machine; only a caller left waiting forever reaches it.</summary>
    public static readonly TimeSpan Bound = TimeSpan.FromMinutes(1);

    /// <summary>The exception <paramref name="task"/> fails with; fails the test when <paramref name="what"/> gets no answer within <see cref="Bound"/>.</summary>
    public static async Task<Exception> FailureAsync(Task task, string what)
    {
        var first = await Task.WhenAny(task, Task.Delay(Bound));
        Assert.True(ReferenceEquals(first, task), $"{what} got no answer: the writer left its caller waiting");
        return await Assert.ThrowsAnyAsync<Exception>(() => task);
    }

    /// <summary>Awaits <paramref name="task"/>; fails the test when <paramref name="what"/> gets no answer within <see cref="Bound"/>.</summary>
    public static async Task<T> ResultAsync<T>(Task<T> task, string what)
    {
        var first = await Task.WhenAny(task, Task.Delay(Bound));
        Assert.True(ReferenceEquals(first, task), $"{what} got no answer: the writer left its caller waiting");
        return await task;
    }
}
