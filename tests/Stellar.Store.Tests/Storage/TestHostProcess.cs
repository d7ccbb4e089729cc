using Stellar.Store.Tests.Support;

namespace Stellar.Store.Tests.Storage;

/// <summary>Starts Stellar.Store.TestHost, the child process of tests that need a second process (a verb and its arguments).</summary>
internal static class TestHostProcess
{
    private const string AssemblyName = "Stellar.Store.TestHost";
    private const string ProjectDirectory = "tests/Stellar.Store.TestHost";

    /// <summary>Starts the child with <paramref name="arguments"/> (a verb and its arguments).</summary>
    public static ChildProcess Start(params string[] arguments) => ChildProcess.Start(AssemblyName, ProjectDirectory, null, arguments);

    /// <summary>Starts the child with <paramref name="arguments"/>, adding <paramref name="environment"/> to the variables it inherits.</summary>
    public static ChildProcess StartWithEnvironment(IReadOnlyDictionary<string, string> environment, params string[] arguments) =>
        ChildProcess.Start(AssemblyName, ProjectDirectory, environment, arguments);
}
