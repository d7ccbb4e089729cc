namespace Stellar.Store.Engine;

/// <summary>What an <see cref="IndexStep{TKey,TValue}"/> asks of the collection's writer.</summary>
internal enum IndexStepKind
{
    /// <summary>Start keeping the index: build it (beside the writer, unless it is unique) from the records published before the step.</summary>
    Build,

    /// <summary>Take the index built beside the writer, bring it up to the writes made during its build, and answer from it.</summary>
    Install,

    /// <summary>Stop keeping the index.</summary>
    Drop,
}
