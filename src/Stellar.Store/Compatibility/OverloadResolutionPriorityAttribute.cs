#if !NET9_0_OR_GREATER
namespace System.Runtime.CompilerServices;

/// <summary>
/// The attribute of .NET 9 and later that C# 13 compilers read by its name to prefer one overload over another, declared
/// for the .NET 8 build so that its callers resolve <c>Collection.Changes(default)</c> as the .NET 10 build's callers do.
/// </summary>
[AttributeUsage(AttributeTargets.Method | AttributeTargets.Constructor | AttributeTargets.Property, AllowMultiple = false, Inherited = false)]
internal sealed class OverloadResolutionPriorityAttribute : Attribute
{
    public OverloadResolutionPriorityAttribute(int priority) => Priority = priority;

    /// <summary>Higher wins among the overloads that apply equally well.</summary>
    public int Priority { get; }
}
#endif
