namespace Stellar.Store.Feed;

/// <summary>What one <see cref="ChangeFeedReader{TKey,TValue}.Fill"/> found.</summary>
internal enum FillResult
{
    /// <summary>The batch holds changes.</summary>
    Filled,

    /// <summary>Every committed change was delivered: wait for the committed end to move.</summary>
    AtTheEnd,

    /// <summary>The committed end lies beyond what reached the OS (Buffered mode): hand it to the OS, then read again.</summary>
    BehindTheOs,
}
