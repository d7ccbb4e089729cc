using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.ExceptionServices;

namespace Stellar.Store.Indexes;

/// <summary>
/// The order of index keys that are tuples (<see cref="ValueTuple{T1,T2}"/> and the other arities, <see cref="Tuple{T1,T2}"/>
/// and theirs, and nullable value tuples): item by item, each item ordered as an index key of its type would be
/// (<see cref="IndexOrder.Of{T}"/>), so that text in a tuple is ordered ordinally, as a string key is.
/// </summary>
/// <remarks>
/// <para>Why not the tuples' own comparison: it orders text by the culture of the thread that compares. An index's
/// writer and its readers run on different threads, whose cultures may differ (a game server that sets its players'
/// culture on a thread, say): a reader then searched an order it did not share with the writer, and missed records
/// that were there. The culture's comparison also holds distinct strings equal (it ignores a soft hyphen, for one), so
/// a unique index refused a key no record had.</para>
/// <para>An order is compiled when an index is declared, into a comparison that calls each item's order in turn.</para>
/// <para>Thread safety: stateless; the comparers it makes are immutable and may be used from any thread.</para>
/// </remarks>
internal static class TupleOrder
{
    private static readonly MethodInfo OrderOfItem = typeof(IndexOrder).GetMethod(nameof(IndexOrder.Of))!;

    /// <summary>
    /// The order of <typeparamref name="T"/> when it is a tuple, or null; <paramref name="what"/> names the key in the
    /// message of an item without an order.
    /// </summary>
    /// <exception cref="ArgumentException">An item of the tuple has no order.</exception>
    public static IComparer<T>? Of<T>(string what)
    {
        var tuple = Nullable.GetUnderlyingType(typeof(T)) ?? typeof(T);
        if (!IsTuple(tuple))
        {
            return null;
        }

        var x = Expression.Parameter(typeof(T), "x");
        var y = Expression.Parameter(typeof(T), "y");
        var done = Expression.Label(typeof(int), "done");
        var body = new List<Expression>();
        var (left, right) = (x as Expression, y as Expression);
        if (tuple != typeof(T) || !tuple.IsValueType)
        {
            // Null below every tuple: a nullable value tuple by HasValue, a reference tuple by reference.
            var xNull = IsNull(x, nullable: tuple != typeof(T));
            var yNull = IsNull(y, nullable: tuple != typeof(T));
            body.Add(Expression.IfThen(xNull, Expression.Return(done, Expression.Condition(yNull, Expression.Constant(0), Expression.Constant(-1)))));
            body.Add(Expression.IfThen(yNull, Expression.Return(done, Expression.Constant(1))));
            if (tuple != typeof(T))
            {
                (left, right) = (Expression.Property(x, nameof(Nullable<int>.Value)), Expression.Property(y, nameof(Nullable<int>.Value)));
            }
        }

        var order = Expression.Variable(typeof(int), "order");
        var items = tuple.GetGenericArguments();
        for (var i = 0; i < items.Length; i++)
        {
            // The eighth is the rest of a longer tuple: a tuple itself, ordered the same way.
            var name = i == 7 ? "Rest" : $"Item{i + 1}";
            var itemOrder = ItemOrder(items[i], $"{what}'s item {i + 1}");
            body.Add(Expression.Assign(order, CompareItems(items[i], itemOrder, Expression.PropertyOrField(left, name), Expression.PropertyOrField(right, name))));
            body.Add(Expression.IfThen(Expression.NotEqual(order, Expression.Constant(0)), Expression.Return(done, order)));
        }

        body.Add(Expression.Label(done, Expression.Constant(0)));
        var comparison = Expression.Lambda<Comparison<T>>(Expression.Block([order], body), x, y).Compile();
        return Comparer<T>.Create(comparison);
    }

    /// <summary>
    /// The order of two items of type <paramref name="item"/>, as <paramref name="itemOrder"/> gives it: a string's by a
    /// direct call of the ordinal comparison, and a value's of a type that compares itself (<see cref="IComparable{T}"/>:
    /// numbers, <see cref="DateTime"/>, <see cref="Guid"/>) by a direct call of its own <c>CompareTo</c>, which is what
    /// its default comparer calls, so that the common tuples cost no interface call per item.
    /// </summary>
    private static MethodCallExpression CompareItems(Type item, object itemOrder, Expression left, Expression right)
    {
        if (item == typeof(string))
        {
            return Expression.Call(typeof(string).GetMethod(nameof(string.CompareOrdinal), [typeof(string), typeof(string)])!, left, right);
        }

        if (item.IsValueType && Nullable.GetUnderlyingType(item) is null && !IsTuple(item)
            && typeof(IComparable<>).MakeGenericType(item).IsAssignableFrom(item)
            && item.GetMethod(nameof(IComparable<int>.CompareTo), [item]) is { ReturnType: var returns } compareTo && returns == typeof(int))
        {
            return Expression.Call(left, compareTo, right);
        }

        var comparer = typeof(IComparer<>).MakeGenericType(item);
        return Expression.Call(Expression.Constant(itemOrder, comparer), comparer.GetMethod(nameof(IComparer<int>.Compare))!, left, right);
    }

    /// <summary>Whether <paramref name="value"/>, a nullable value tuple or a reference tuple, is null.</summary>
    private static Expression IsNull(ParameterExpression value, bool nullable) => nullable
        ? Expression.Not(Expression.Property(value, nameof(Nullable<int>.HasValue)))
        : Expression.ReferenceEqual(value, Expression.Constant(null));

    /// <summary>Whether <paramref name="type"/> is a value or reference tuple of one item or more.</summary>
    private static bool IsTuple(Type type)
    {
        if (!type.IsGenericType)
        {
            return false;
        }

        var definition = type.GetGenericTypeDefinition();
        return definition.Namespace == "System"
            && (definition.Name.StartsWith("ValueTuple`", StringComparison.Ordinal) || definition.Name.StartsWith("Tuple`", StringComparison.Ordinal))
            && definition.Assembly == typeof(ValueTuple).Assembly;
    }

    /// <summary><see cref="IndexOrder.Of{T}"/> of an item's type, its exception thrown as it is.</summary>
    private static object ItemOrder(Type item, string what)
    {
        try
        {
            return OrderOfItem.MakeGenericMethod(item).Invoke(null, [what])!;
        }
        catch (TargetInvocationException e) when (e.InnerException is { } inner)
        {
            ExceptionDispatchInfo.Throw(inner);
            throw;
        }
    }
}
