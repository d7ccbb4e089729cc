namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// The median of a sample and a distribution-free confidence interval for it, from order statistics: with n
/// samples, the interval [x(j), x(n+1-j)] covers the true median with probability 1 - 2·P(Binomial(n, 1/2) &lt; j).
/// It assumes nothing about the shape of the distribution, which matters here: times on a shared machine are
/// skewed by other processes, so a mean ± t·s interval would be too narrow on one side and too wide on the other.
/// </summary>
public readonly record struct MedianInterval(double Median, double Low, double High, int Samples, double Coverage)
{
    /// <summary>The coverage asked for.</summary>
    public const double Confidence = 0.95;

    /// <summary>The median and interval of <paramref name="values"/>; null for fewer than 2 samples.</summary>
    public static MedianInterval? Of(IReadOnlyList<double> values)
    {
        if (values.Count < 2)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        var n = sorted.Length;
        var median = n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2;

        // The largest j (1-based) whose interval still reaches the asked coverage; j = 1 (min..max) otherwise.
        var j = 1;
        while (j + 1 <= n / 2 && CoverageOf(n, j + 1) >= Confidence)
        {
            j++;
        }

        return new MedianInterval(median, sorted[j - 1], sorted[n - j], n, CoverageOf(n, j));
    }

    /// <summary>1 - 2·P(B &lt; j) for B ~ Binomial(n, 1/2).</summary>
    public static double CoverageOf(int n, int j)
    {
        double below = 0;
        double choose = 1;
        for (var k = 0; k < j; k++)
        {
            below += choose;
            choose = choose * (n - k) / (k + 1);
        }

        return 1 - (2 * below / Math.Pow(2, n));
    }
}
