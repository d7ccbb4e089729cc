using System.Globalization;
using System.Net;
using System.Text;

namespace Stellar.Store.Benchmarks.Report;

/// <summary>
/// A horizontal bar chart of operations per second, one panel per workload and parameter set, on a log scale
/// (the rows span six orders of magnitude). Stellar rows are orange, peers blue, plain-file ceilings grey.
/// </summary>
internal static class SvgChart
{
    private const int Width = 980;
    private const int LabelWidth = 330;
    private const int RowHeight = 16;
    private const int PanelGap = 26;

    public static string Render(IReadOnlyList<ResultRow> rows)
    {
        var panels = rows.Where(r => r.OpsPerSecond is > 0)
            .GroupBy(r => $"{r.Workload} {r.ParameterText}".Trim())
            .ToList();
        // The scale starts at 0.1/s so that rows slower than one per second (opening a large store) still show.
        const double Floor = 0.1;
        var max = Math.Log10(rows.Max(r => r.OpsPerSecond ?? 1) * 2 / Floor);
        var height = 40 + panels.Sum(p => PanelGap + (p.Count() * RowHeight));
        var svg = new StringBuilder();
        svg.AppendLine(CultureInfo.InvariantCulture, $"""<svg xmlns="http://www.w3.org/2000/svg" width="{Width}" height="{height}" font-family="sans-serif" font-size="11">""");
        svg.AppendLine("""<rect width="100%" height="100%" fill="white"/>""");
        svg.AppendLine("""<text x="10" y="20" font-size="14" font-weight="bold">Operations per second (log scale; bulk import: records per second). Orange: Stellar.Store; blue: peers; grey: plain FileStream / ConcurrentDictionary ceilings</text>""");
        var y = 40;
        foreach (var panel in panels)
        {
            y += PanelGap;
            svg.AppendLine(CultureInfo.InvariantCulture, $"""<text x="10" y="{y - 8}" font-weight="bold">{WebUtility.HtmlEncode(panel.Key)}</text>""");
            foreach (var row in panel)
            {
                var ops = row.OpsPerSecond!.Value;
                var barWidth = Math.Max(1, (Math.Log10(Math.Max(ops, Floor) / Floor) / max) * (Width - LabelWidth - 90));
                var color = row.IsStellar ? "#f28e2b"
                    : row.Method.StartsWith("FileStream", StringComparison.Ordinal) || row.Method.StartsWith("ConcurrentDictionary", StringComparison.Ordinal) ? "#9d9d9d"
                    : "#4e79a7";
                var label = $"{row.Method} [{row.Categories}]";
                svg.AppendLine(CultureInfo.InvariantCulture, $"""<text x="{LabelWidth - 6}" y="{y + 12}" text-anchor="end">{WebUtility.HtmlEncode(label)}</text>""");
                svg.AppendLine(CultureInfo.InvariantCulture, $"""<rect x="{LabelWidth}" y="{y + 2}" width="{barWidth:F1}" height="{RowHeight - 4}" fill="{color}"/>""");
                svg.AppendLine(CultureInfo.InvariantCulture, $"""<text x="{LabelWidth + barWidth + 4:F1}" y="{y + 12}">{ops.ToString(ops < 10 ? "N2" : "N0", CultureInfo.InvariantCulture)}</text>""");
                y += RowHeight;
            }
        }

        svg.AppendLine("</svg>");
        return svg.ToString();
    }
}
