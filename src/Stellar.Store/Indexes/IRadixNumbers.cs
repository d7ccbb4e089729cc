namespace Stellar.Store.Indexes;

/// <summary>
/// The number <see cref="RadixSort"/> orders an item by. A struct implements it, so that the sort's code is made for it
/// and calls it without an interface call.
/// </summary>
internal interface IRadixNumbers<T>
{
    ulong Of(in T item);
}
