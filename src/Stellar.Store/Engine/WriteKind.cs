namespace Stellar.Store.Engine;

/// <summary>What a single write asks of its key.</summary>
internal enum WriteKind : byte
{
    Insert,
    Update,
    Upsert,
    Delete,
}
