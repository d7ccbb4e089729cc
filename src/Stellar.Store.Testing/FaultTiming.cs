using Stellar.Store.Storage;

namespace Stellar.Store.Testing;

/// <summary>When an injected fault of a <see cref="FaultInjectingStorage"/> fires relative to the operation's effect.</summary>
public enum FaultTiming
{
    /// <summary>The operation throws before it touches the inner storage: a clean failure (a torn append excepted).</summary>
    BeforeEffect,

    /// <summary>
    /// The operation takes its whole effect on the inner storage, then throws: the write landed but <c>write()</c>
    /// reported EIO, the rename happened but the directory fsync failed, the delete happened but reported an error.
    /// The caller cannot tell it from a clean failure, so its outcome is unknown.
    /// </summary>
    AfterEffect,
}
