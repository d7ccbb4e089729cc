namespace Stellar.Store.Codecs;

/// <summary>How a serializer checks that a key of one type reads back as itself (<see cref="RecordSerializer.EnsureKeyReadsBack{T}"/>).</summary>
internal enum KeyReadBack
{
    /// <summary>A number, an enum, a <see cref="Guid"/> or a time other than a <see cref="DateTime"/>, by MessagePack's own formatter: it always does.</summary>
    Always,

    /// <summary>Text or a <see cref="DateTime"/>, by MessagePack's own formatter: by what <see cref="ReadBack"/> knows it loses.</summary>
    Inspected,

    /// <summary>Any other type, or one a formatter of the user writes: by reading its bytes back and comparing.</summary>
    Decoded,
}
