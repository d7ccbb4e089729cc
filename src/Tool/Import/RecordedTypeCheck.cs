using MessagePack;
using MessagePack.Resolvers;

namespace Stellar.Store.Tool.Import;

/// <summary>
/// Checks that MessagePack bytes read as a collection's recorded type, when the tool can load that type: the .NET
/// types (<c>System.Int32</c>, <c>System.Guid</c>, <c>System.String</c>, tuples of them, …). A type of the game's own
/// assemblies cannot be loaded by the tool, and its values are only checked to be one whole MessagePack value.
/// </summary>
internal sealed class RecordedTypeCheck
{
    // The options the store writes and reads records with (see docs/codecs.md).
    private static readonly MessagePackSerializerOptions Options =
        ContractlessStandardResolver.Options.WithSecurity(MessagePackSecurity.UntrustedData);

    private readonly Type? _type;

    public RecordedTypeCheck(string recordedName)
    {
        RecordedName = recordedName;
        _type = recordedName == typeof(object).ToString() ? null : Type.GetType(recordedName, throwOnError: false);
    }

    /// <summary>The type's name as the manifest records it.</summary>
    public string RecordedName { get; }

    /// <summary>Whether values are checked against the type itself (it could be loaded).</summary>
    public bool IsTyped => _type is not null;

    /// <summary>Why <paramref name="bytes"/> do not read as the type; null when they do, or when the type cannot be loaded.</summary>
    public string? Problem(ReadOnlyMemory<byte> bytes)
    {
        if (_type is null)
        {
            return null;
        }

        try
        {
            return MessagePackSerializer.Deserialize(_type, bytes, Options) is null ? $"reads as null, not as {RecordedName}" : null;
        }
        catch (MessagePackSerializationException e)
        {
            return $"does not read as {RecordedName}: {e.GetBaseException().Message}";
        }
    }
}
