using System.Net;
using Stellar.Store.Tests.Support;

namespace Stellar.Store.GameServer.Tests;

/// <summary>Starts the sample as a child process (<c>dotnet Stellar.Store.GameServer.dll ...</c>) and finds where it listens.</summary>
internal static class GameServerProcess
{
    private const string AssemblyName = "Stellar.Store.GameServer";
    private const string ProjectDirectory = "samples/GameServer";
    private const string ListeningPrefix = "listening on ";

    /// <summary>Starts the sample with <paramref name="arguments"/>.</summary>
    public static ChildProcess Start(params string[] arguments) => ChildProcess.Start(AssemblyName, ProjectDirectory, null, arguments);

    /// <summary>The endpoint from the child's <c>listening on ADDRESS:PORT</c> line; fails if it does not come in time.</summary>
    public static async Task<IPEndPoint> WaitUntilListeningAsync(this ChildProcess server, TimeSpan timeout) =>
        IPEndPoint.Parse(await server.WaitForLineStartingWithAsync(ListeningPrefix, timeout).ConfigureAwait(false));
}
