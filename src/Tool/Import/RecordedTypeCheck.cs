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

    /// <summary>
    /// <paramref name="bytes"/> as the game's type writes its value, or null with <paramref name="problem"/> saying why
    /// they do not read as it; the bytes as they are when the type cannot be loaded. A value has several spellings in
    /// JSON (a GUID in capitals, in braces, without dashes) and the store compares keys by their bytes, so a key is
    /// stored as the game writes it: else it would be a second record of the same key, one a delete by the game misses.
    /// </summary>
    public byte[]? Canonical(byte[] bytes, out string? problem)
    {
        problem = null;
        if (_type is null)
        {
            return bytes;
        }

        try
        {
            if (MessagePackSerializer.Deserialize(_type, bytes, Options) is { } value)
            {
                return MessagePackSerializer.Serialize(_type, value, Options);
            }

            problem = $"reads as null, not as {RecordedName}";
        }
        catch (MessagePackSerializationException e)
        {
            problem = $"does not read as {RecordedName}: {e.GetBaseException().Message}";
        }

        return null;
    }
}
