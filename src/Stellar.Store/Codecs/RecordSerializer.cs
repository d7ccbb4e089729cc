using System.Buffers;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Diagnostics;
using MessagePack;
using MessagePack.Resolvers;

namespace Stellar.Store.Codecs;

/// <summary>
/// MessagePack serialization of one store's keys and values: first the formatters and resolvers of
/// <see cref="StoreOptions.Serializer"/>, when it is set, then ours (<c>[MessagePackObject]</c> types by their
/// attributes, plain classes and records by the contractless resolver). Bytes read from disk are always decoded under
/// <see cref="MessagePackSecurity.UntrustedData"/> limits, or the stricter ones a caller's options give.
/// </summary>
/// <remarks>Thread safety: every member may be called from any thread.</remarks>
internal sealed class RecordSerializer
{

    /// <summary>
    /// Ours alone: the store's own collections (the unit log) always use it, so that no user formatter can change how
    /// the store reads its own records; so do user collections when <see cref="StoreOptions.Serializer"/> is null.
    /// </summary>
    public static RecordSerializer Default { get; } = new(ContractlessStandardResolver.Options.WithSecurity(MessagePackSecurity.UntrustedData));

    /// <summary>Where <see cref="WritesBack"/> serializes, one per loading thread.</summary>
    [ThreadStatic]
    private static ArrayBufferWriter<byte>? s_writeBack;

    private RecordSerializer(MessagePackSerializerOptions options) => Options = options;

    /// <summary>The options every key and value is written and read with (internal: tests and the benchmarks' floor use them).</summary>
    public MessagePackSerializerOptions Options { get; }

    /// <summary>
    /// The serializer for <paramref name="user"/> options (<see cref="StoreOptions.Serializer"/>, validated by
    /// <see cref="StoreOptions"/>), or <see cref="Default"/> when they are null: the user's resolver in front of ours, and
    /// <see cref="SecurityFor"/> their security.
    /// </summary>
    public static RecordSerializer For(MessagePackSerializerOptions? user)
    {
        if (user is null)
        {
            return Default;
        }

        Debug.Assert(user.Compression == MessagePackCompression.None && SecurityFor(user).HashCollisionResistant, "StoreOptions.Validate refused these options");
        var resolver = CompositeResolver.Create(user.Resolver, ContractlessStandardResolver.Instance);
        return new RecordSerializer(user.WithResolver(resolver).WithSecurity(SecurityFor(user)));
    }

    /// <summary>
    /// The security records are decoded with under <paramref name="user"/> options: <see cref="MessagePackSecurity.UntrustedData"/>
    /// when they left the default <see cref="MessagePackSecurity.TrustedData"/> (every options object starts with it, so it
    /// means "not chosen"), else their own, which the store accepts only when it keeps the hash-collision-resistant maps
    /// that <see cref="MessagePackSecurity.UntrustedData"/> has.
    /// </summary>
    public static MessagePackSecurity SecurityFor(MessagePackSerializerOptions user) =>
        ReferenceEquals(user.Security, MessagePackSecurity.TrustedData) ? MessagePackSecurity.UntrustedData : user.Security;

    /// <summary>Fails with an <see cref="ArgumentException"/> naming <typeparamref name="T"/> when MessagePack cannot handle it.</summary>
    public void EnsureSerializable<T>(string role)
    {
        try
        {
            Options.Resolver.GetFormatterWithVerify<T>();
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            throw new ArgumentException(
                $"The {role} type '{typeof(T)}' cannot be serialized by MessagePack ({e.GetBaseException().Message}); a formatter for it can be given through StoreOptions.Serializer.",
                typeof(T).Name,
                e);
        }
    }

    /// <summary>Serializes <paramref name="value"/> into <paramref name="writer"/>; wraps failures with the type's name.</summary>
    public void Serialize<T>(IBufferWriter<byte> writer, T value)
    {
        try
        {
            MessagePackSerializer.Serialize(writer, value, Options);
        }
        catch (MessagePackSerializationException e)
        {
            throw new ArgumentException(
                $"A value of type '{typeof(T)}' could not be serialized ({e.GetBaseException().Message}); nothing was stored. A formatter for a type MessagePack cannot handle can be given through StoreOptions.Serializer.",
                nameof(value),
                e);
        }
    }

    /// <summary>
    /// Refuses <paramref name="key"/>, whose serialized form this serializer just wrote as <paramref name="bytes"/>, when
    /// those bytes read back as another key: a record stored under it could not be found under it after a reopen, and
    /// two such keys could become one record. Costs nothing for numbers and Guids, one scan of a text, and a decode for a
    /// key of any other type (or one a formatter of the user writes).
    /// </summary>
    /// <returns>
    /// The key for the store to keep: <paramref name="key"/> itself when its type cannot change (numbers, Guids, text),
    /// else the copy decoded from <paramref name="bytes"/>, so that a caller who changes its key object afterwards
    /// cannot move the record in the map.
    /// </returns>
    /// <exception cref="ArgumentException">The key would read back as another; nothing was stored.</exception>
    public T EnsureKeyReadsBack<T>(T key, ReadOnlyMemory<byte> bytes, string paramName)
    {
        switch (KeyCheck<T>())
        {
            case KeyReadBack.Always:
                return key;
            case KeyReadBack.Inspected:
                if (ReadBack.WhyNot(key) is { } why)
                {
                    throw new ArgumentException($"The key '{key}' cannot be stored: {why}, another key, so its record could not be found under it after a reopen. Nothing was stored.", paramName);
                }

                return key;
            default:
                var back = MessagePackSerializer.Deserialize<T>(bytes, Options);
                if (!EqualityComparer<T>.Default.Equals(key, back))
                {
                    throw new ArgumentException(
                        $"The key '{key}' cannot be stored: it reads back from its serialized form as '{back}', another key (a key type without value equality, or text with an unpaired surrogate or a local DateTime inside it), so its record could not be found under it after a reopen. Nothing was stored.",
                        paramName);
                }

                return back;
        }
    }

    /// <summary>
    /// Refuses <paramref name="bytes"/>, a key or value this serializer just wrote, when they nest containers deeper than
    /// <see cref="MessagePackSecurity.MaximumObjectGraphDepth"/>: MessagePack writes such a value but refuses to read it
    /// back, so storing it would acknowledge a record whose block the next open could not load. Costs nothing for bytes
    /// shorter than the limit (each level takes at least a byte), and one pass over the headers of longer ones.
    /// </summary>
    /// <exception cref="ArgumentException">The bytes nest too deep; nothing was stored.</exception>
    public void EnsureReadable(ReadOnlyMemory<byte> bytes, string paramName)
    {
        var limit = Options.Security.MaximumObjectGraphDepth;
        if (bytes.Length <= limit || !MayNest(bytes.Span, limit))
        {
            return;
        }

        var reader = new MessagePackReader(bytes);
        var pooled = ArrayPool<long>.Shared.Rent(limit + 1);
        try
        {
            // The items left to read in each enclosing container, innermost last.
            var enclosing = pooled.AsSpan(0, limit + 1);
            var depth = 0;
            long left = 1;
            while (left > 0 || depth > 0)
            {
                if (left == 0)
                {
                    left = enclosing[--depth];
                    continue;
                }

                left--;
                long items = reader.NextMessagePackType switch
                {
                    MessagePackType.Array => reader.ReadArrayHeader(),
                    MessagePackType.Map => 2L * reader.ReadMapHeader(),
                    _ => -1,
                };
                if (items < 0)
                {
                    reader.Skip();
                    continue;
                }

                if (depth == limit)
                {
                    throw new ArgumentException(
                        $"The {paramName} nests more than {limit} levels deep; MessagePack would write it but refuse to read it back (MaximumObjectGraphDepth), so nothing was stored.",
                        paramName);
                }

                enclosing[depth++] = left;
                left = items;
            }
        }
        finally
        {
            ArrayPool<long>.Shared.Return(pooled);
        }
    }

    /// <summary>
    /// Whether <paramref name="bytes"/> hold more than <paramref name="limit"/> bytes of 0x80 or above, which every header
    /// of an array or a map is (fixmap, fixarray, array and map 16 and 32): fewer cannot nest that deep, and most records
    /// (ASCII text, small numbers) are told so by one pass that counts the high bits 32 bytes at a time.
    /// </summary>
    private static bool MayNest(ReadOnlySpan<byte> bytes, int limit)
    {
        var high = 0;
        var i = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            ref var start = ref MemoryMarshal.GetReference(bytes);
            for (; i + Vector256<byte>.Count <= bytes.Length; i += Vector256<byte>.Count)
            {
                high += BitOperations.PopCount(Vector256.LoadUnsafe(ref start, (nuint)i).ExtractMostSignificantBits());
            }
        }

        for (; i < bytes.Length; i++)
        {
            high += bytes[i] >> 7;
        }

        return high > limit;
    }

    /// <summary>How keys of type <typeparamref name="T"/> are checked by this serializer: decided once, and kept for the serializer asked last.</summary>
    private KeyReadBack KeyCheck<T>()
    {
        var last = KeyChecks<T>.Last;
        if (last is not null && ReferenceEquals(last.Serializer, this))
        {
            return last.Check;
        }

        var type = typeof(T);
        var check = Options.Resolver.GetFormatter<T>()?.GetType().Assembly != typeof(MessagePackSerializer).Assembly ? KeyReadBack.Decoded
            : type == typeof(string) || type == typeof(DateTime) ? KeyReadBack.Inspected
            : type.IsPrimitive || type.IsEnum || type == typeof(decimal) || type == typeof(Guid) || type == typeof(TimeSpan) || type == typeof(DateTimeOffset)
                || type == typeof(DateOnly) || type == typeof(TimeOnly) || type == typeof(Int128) || type == typeof(UInt128) || type == typeof(Half) ? KeyReadBack.Always
            : KeyReadBack.Decoded;
        KeyChecks<T>.Last = new KeyCheckOf(this, check);
        return check;
    }

    /// <summary>
    /// Deserializes bytes from disk; throws <see cref="MessagePackSerializationException"/> when they do not decode, or
    /// decode to null: no write stores a null key or value, so a nil in a record is damage (or a crafted block), never
    /// a record to hand to a reader.
    /// </summary>
    public T Deserialize<T>(ReadOnlyMemory<byte> bytes)
    {
        var value = MessagePackSerializer.Deserialize<T>(bytes, Options);
        if (value is null)
        {
            throw new MessagePackSerializationException($"A stored {typeof(T).Name} is nil, which no write stores.");
        }

        return value;
    }

    /// <summary>
    /// The value <paramref name="bytes"/> hold, a value this serializer just wrote, decoded into an instance of the
    /// store's own: what a write keeps in memory and hands to readers, indexes and compaction, so that the caller's
    /// object, which the caller may go on changing, is never read again once serialized. Decoding it at the write also
    /// refuses a value that would not read back (a formatter that cannot read what it wrote, or writes nil), which would
    /// otherwise be acknowledged and then fail the collection's next load.
    /// </summary>
    /// <exception cref="ArgumentException">The bytes do not decode to a value; nothing was stored.</exception>
    public T DecodeWritten<T>(ReadOnlyMemory<byte> bytes, string paramName)
    {
        try
        {
            return Deserialize<T>(bytes);
        }
        catch (MessagePackSerializationException e)
        {
            throw new ArgumentException(
                $"The {typeof(T).Name} cannot be stored: it does not read back from its serialized form ({e.Message}), so the next open could not load it. Nothing was stored.",
                paramName, e);
        }
    }

    /// <summary>
    /// Whether <paramref name="value"/>, decoded from <paramref name="stored"/>, serializes to those same bytes: false for
    /// a value written by another version of its type (members this one skips or lacks), whose bytes a compaction must
    /// copy as they are rather than write the value again.
    /// </summary>
    public bool WritesBack<T>(T value, ReadOnlySpan<byte> stored)
    {
        var scratch = s_writeBack ??= new ArrayBufferWriter<byte>(256);
        scratch.ResetWrittenCount();
        try
        {
            MessagePackSerializer.Serialize(scratch, value, Options);
            return scratch.WrittenSpan.SequenceEqual(stored);
        }
        catch (MessagePackSerializationException)
        {
            return false;
        }
        finally
        {
            if (scratch.Capacity > 1 << 20)
            {
                s_writeBack = null;
            }
        }
    }

    /// <summary>A private copy of <paramref name="value"/> (for copy-on-read).</summary>
    public T Copy<T>(T value) => MessagePackSerializer.Deserialize<T>(MessagePackSerializer.Serialize(value, Options), Options);

    /// <summary>A serializer's check of one key type.</summary>
    private sealed record KeyCheckOf(RecordSerializer Serializer, KeyReadBack Check);

    /// <summary>The check of <typeparamref name="T"/> keys last decided (a process has one serializer per store, most often one).</summary>
    private static class KeyChecks<T>
    {
        public static volatile KeyCheckOf? Last;
    }
}
