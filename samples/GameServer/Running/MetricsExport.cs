namespace Stellar.Store.Samples.GameServer.Running;

/// <summary>Where <c>--metrics</c> sends the store's instruments.</summary>
internal enum MetricsExport
{
    /// <summary>Nowhere: the status line still reads them.</summary>
    None,

    /// <summary>Printed every few seconds (in the live display when the output is a terminal).</summary>
    Console,
}
