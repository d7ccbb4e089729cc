namespace Stellar.Store.Format;

/// <summary>The kind byte in front of each record of a block.</summary>
internal enum RecordKind : byte
{
    /// <summary>Sets a key to a value.</summary>
    Put = 1,

    /// <summary>Removes a key.</summary>
    Delete = 2,
}
