namespace Stellar.Store.Indexes;

/// <summary>
/// The order an index keeps its keys in: ordinal for strings, item by item for tuples (<see cref="TupleOrder"/>, so that
/// their text is ordinal too), the type's own comparison otherwise.
/// </summary>
internal static class IndexOrder
{
    /// <summary>
    /// The comparer of <typeparamref name="T"/>; throws <see cref="ArgumentException"/> naming
    /// <paramref name="what"/> when the type has no order of its own.
    /// </summary>
    public static IComparer<T> Of<T>(string what)
    {
        if (typeof(T) == typeof(string))
        {
            // Ordinal: the same order on every machine and culture, and the one a prefix is a contiguous range of.
            return (IComparer<T>)(object)StringComparer.Ordinal;
        }

        if (TupleOrder.Of<T>(what) is { } tuple)
        {
            return tuple;
        }

        // What Comparer<T>.Default orders by: the type's comparison with itself (a base type's counts, the interface being
        // contravariant), or the one with any object. A comparison with another type only is no order of its values.
        var type = Nullable.GetUnderlyingType(typeof(T)) ?? typeof(T);
        if (!typeof(IComparable).IsAssignableFrom(type) && !typeof(IComparable<>).MakeGenericType(type).IsAssignableFrom(type))
        {
            throw new ArgumentException($"{what} of type {typeof(T)} has no order: an index needs keys that implement IComparable<T> (numbers, strings, DateTime, Guid, tuples of them).", nameof(T));
        }

        return Comparer<T>.Default;
    }
}
