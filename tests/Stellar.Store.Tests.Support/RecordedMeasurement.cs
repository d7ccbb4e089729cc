namespace Stellar.Store.Tests.Support;

/// <summary>One measurement a <see cref="MetricRecorder"/> heard: the instrument, its unit, the value and the tags.</summary>
public sealed record RecordedMeasurement(string Instrument, string? Unit, double Value, IReadOnlyDictionary<string, object?> Tags)
{
    /// <summary>The value of tag <paramref name="key"/>, or null.</summary>
    public object? Tag(string key) => Tags.TryGetValue(key, out var value) ? value : null;
}
