using System.Globalization;
using System.Reflection;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Figures a benchmark measures beside its time (bytes on disk, bytes per operation), handed from the benchmark
/// process to the host as small files under <see cref="Paths.MetricsRoot"/> and shown by the extra columns.
/// </summary>
public static class SideMetrics
{
    /// <summary>Bytes the store took on disk after the workload.</summary>
    public const string DiskBytes = "disk";

    /// <summary>Records the store holds after the workload, for bytes on disk per record.</summary>
    public const string RecordsStored = "records-stored";

    /// <summary>Raw (uncompressed) record bytes per operation, for MB/s.</summary>
    public const string BytesPerOp = "bytes-per-op";

    /// <summary>Operations one measured operation stands for (a bulk import of N records: N), for Ops/s.</summary>
    public const string OpsPerOp = "ops-per-op";

    /// <summary>The median time a checkpoint held a collection's writer, in microseconds.</summary>
    public const string WriterPauseMicroseconds = "writer-pause-us";

    /// <summary>The median bytes a checkpoint copied (the rest it shared by hard link).</summary>
    public const string CopiedBytes = "copied-bytes";

    /// <summary>The median bytes the store's shard files grew by between two checkpoints (what the next one should copy at most).</summary>
    public const string WrittenBytes = "written-bytes";

    /// <summary>The method name under which a figure applies to every method of the class.</summary>
    public const string AnyMethod = "any";

    /// <summary>Records what <paramref name="method"/> of <paramref name="benchmark"/> measured, for its current parameters.</summary>
    public static void Record(object benchmark, string method, string metric, double value)
    {
        Directory.CreateDirectory(Paths.MetricsRoot);
        var file = Path.Combine(Paths.MetricsRoot, FileName(DeclaredType(benchmark).Name, method, ParametersOf(benchmark), metric));
        File.WriteAllText(file, value.ToString("R", CultureInfo.InvariantCulture));
    }

    /// <summary>What the benchmark case recorded for its method, else for <see cref="AnyMethod"/>, else null.</summary>
    public static double? Read(BenchmarkCase benchmarkCase, string metric)
    {
        var parameters = benchmarkCase.Parameters.Items.Select(p => (p.Name, (object?)p.Value)).ToList();
        foreach (var method in new[] { benchmarkCase.Descriptor.WorkloadMethod.Name, AnyMethod })
        {
            var file = Path.Combine(Paths.MetricsRoot, FileName(benchmarkCase.Descriptor.Type.Name, method, parameters, metric));
            if (File.Exists(file) && double.TryParse(File.ReadAllText(file), NumberStyles.Float, CultureInfo.InvariantCulture, out var value))
            {
                return value;
            }
        }

        return null;
    }

    /// <summary>Forgets every recorded figure (at the start of a run, so no stale figure shows).</summary>
    public static void Clear()
    {
        if (Directory.Exists(Paths.MetricsRoot))
        {
            Directory.Delete(Paths.MetricsRoot, recursive: true);
        }
    }

    /// <summary>
    /// The benchmark class itself: BenchmarkDotNet runs a generated subclass (<c>Runnable_N</c>) from another assembly.
    /// </summary>
    private static Type DeclaredType(object benchmark)
    {
        var type = benchmark.GetType();
        while (type.Assembly != typeof(SideMetrics).Assembly && type.BaseType is not null)
        {
            type = type.BaseType;
        }

        return type;
    }

    private static IEnumerable<(string Name, object? Value)> ParametersOf(object benchmark)
    {
        const BindingFlags Flags = BindingFlags.Public | BindingFlags.Instance;
        foreach (var property in benchmark.GetType().GetProperties(Flags))
        {
            if (IsParameter(property))
            {
                yield return (property.Name, property.GetValue(benchmark));
            }
        }

        foreach (var field in benchmark.GetType().GetFields(Flags))
        {
            if (IsParameter(field))
            {
                yield return (field.Name, field.GetValue(benchmark));
            }
        }
    }

    private static bool IsParameter(MemberInfo member) =>
        member.GetCustomAttribute<ParamsAttribute>() is not null
        || member.GetCustomAttribute<ParamsSourceAttribute>() is not null
        || member.GetCustomAttribute<ParamsAllValuesAttribute>() is not null;

    private static string FileName(string type, string method, IEnumerable<(string Name, object? Value)> parameters, string metric)
    {
        var args = string.Join("_", parameters.OrderBy(p => p.Name, StringComparer.Ordinal)
            .Select(p => $"{p.Name}-{Convert.ToString(p.Value, CultureInfo.InvariantCulture)}"));
        var name = $"{type}.{method}.{args}.{metric}";
        return string.Concat(name.Select(c => char.IsLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '_'));
    }
}
