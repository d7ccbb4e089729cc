using System.Globalization;
using System.Text.Json;
using MessagePack;
using Stellar.Store.Tool.Raw;

namespace Stellar.Store.Tool.Import;

/// <summary>
/// Reads a JSON Lines file of records as export writes them, one <c>{"key":…,"value":…}</c> object a line with an
/// optional <c>"expiresAt"</c> (an ISO 8601 time), blank lines skipped, and converts each key and value to
/// MessagePack through MessagePack's JSON conversion. Every line is read and checked before anything is written, so
/// a bad line fails the import with its line number and leaves the store as it was.
/// </summary>
internal static class ImportFile
{
    /// <summary>The records of <paramref name="path"/>, checked against the collection's recorded types where the tool can load them.</summary>
    /// <param name="path">The JSON Lines file.</param>
    /// <param name="keys">The check of the key type.</param>
    /// <param name="values">The check of the value type.</param>
    /// <param name="now">Records that expire before this are left out and counted in <paramref name="expired"/>.</param>
    /// <param name="expired">Records left out because they had expired.</param>
    /// <exception cref="ToolException">A line is not a record, or a key or value does not read as its type.</exception>
    public static List<RawValue> Read(string path, RecordedTypeCheck keys, RecordedTypeCheck values, DateTimeOffset now, out long expired)
    {
        expired = 0;
        var records = new List<RawValue>();
        var number = 0;
        try
        {
            foreach (var line in File.ReadLines(path))
            {
                number++;
                if (string.IsNullOrWhiteSpace(line))
                {
                    continue;
                }

                var record = Parse(line, keys, values, out var problem);
                if (record is null)
                {
                    throw new ToolException(ExitCodes.BadInput, string.Create(CultureInfo.InvariantCulture, $"'{path}' line {number}: {problem} Nothing was imported."));
                }

                if (record.ExpiresAt is { } at && at <= now)
                {
                    expired++;
                    continue;
                }

                records.Add(record);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ToolException(ExitCodes.BadInput, $"Cannot read '{path}': {e.Message}", e);
        }

        return records;
    }

    private static RawValue? Parse(string line, RecordedTypeCheck keys, RecordedTypeCheck values, out string? problem)
    {
        problem = null;
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(line);
        }
        catch (JsonException e)
        {
            problem = $"not JSON: {e.Message}";
            return null;
        }

        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
            {
                problem = "a line must be an object with \"key\" and \"value\".";
                return null;
            }

            if (root.EnumerateObject().FirstOrDefault(p => p.Name is not ("key" or "value" or "expiresAt")) is { Value.ValueKind: not JsonValueKind.Undefined } unknown)
            {
                problem = $"unknown property \"{unknown.Name}\" (a line holds \"key\", \"value\" and optionally \"expiresAt\").";
                return null;
            }

            var key = Convert(root, "key", keys, Collection<RawKey, RawValue>.MaxKeyBytes, ref problem);
            var value = Convert(root, "value", values, Collection<RawKey, RawValue>.MaxValueBytes, ref problem);
            DateTimeOffset? expiresAt = null;
            if (root.TryGetProperty("expiresAt", out var expiry))
            {
                // ISO 8601 only: a culture's format such as "01/02/2030" reads as one day here and another where it was written.
                if (expiry.ValueKind != JsonValueKind.String || !expiry.TryGetDateTimeOffset(out var at))
                {
                    problem ??= "\"expiresAt\" must be an ISO 8601 time, such as \"2030-01-31T12:00:00Z\".";
                    return null;
                }

                // A time without an offset is UTC, where System.Text.Json would take the machine's offset.
                expiresAt = expiry.TryGetDateTime(out var time) && time.Kind == DateTimeKind.Unspecified ? new DateTimeOffset(time, TimeSpan.Zero) : at;
            }

            return key is null || value is null ? null : new RawValue(value, new RawKey(key), expiresAt);
        }
    }

    private static byte[]? Convert(JsonElement root, string name, RecordedTypeCheck check, int maxBytes, ref string? problem)
    {
        if (problem is not null)
        {
            return null;
        }

        if (!root.TryGetProperty(name, out var element) || element.ValueKind == JsonValueKind.Null)
        {
            problem = $"the \"{name}\" is missing or null (the store keeps no null keys or values).";
            return null;
        }

        var bytes = check.Canonical(MessagePackSerializer.ConvertFromJson(element.GetRawText()), out var wrong);
        if (bytes is null)
        {
            problem = $"the \"{name}\" {wrong}.";
            return null;
        }

        if (bytes.Length > maxBytes)
        {
            problem = string.Create(CultureInfo.InvariantCulture, $"the \"{name}\" takes {bytes.Length} bytes of MessagePack; the most is {maxBytes}.");
            return null;
        }

        return bytes;
    }
}
