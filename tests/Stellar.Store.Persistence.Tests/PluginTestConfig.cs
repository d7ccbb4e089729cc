using Akka.Configuration;
using Stellar.Store.Persistence;
using Stellar.Store.Persistence.Tests.Tck;

namespace Stellar.Store.Persistence.Tests;

/// <summary>The configuration every plugin test runs with: the Stellar journal and snapshot store on a fresh directory.</summary>
internal static class PluginTestConfig
{
    /// <summary>A new directory under the temp folder for one test's store (not created: the store makes it).</summary>
    public static string NewDirectory() => Path.Combine(Path.GetTempPath(), "stellar-persistence-tests", Guid.NewGuid().ToString("N"));

    /// <summary>
    /// The journal and snapshot store at <paramref name="directory"/>, with the TCK's test serializer bound. A test kit's
    /// wait for a message gives up after 20 s rather than Akka's 3 s: a bound on a wait, not on speed, which a run on 2
    /// busy cores (the test projects run side by side) overran now and then.
    /// </summary>
    public static Config For(string directory, string durability = "write-through", string extra = "")
    {
        var path = directory.Replace("\\", "/", StringComparison.Ordinal);
        return ConfigurationFactory.ParseString($$"""
            akka.loglevel = WARNING
            akka.test.single-expect-default = 20s
            akka.persistence.publish-plugin-commands = on
            akka.persistence.journal.plugin = "akka.persistence.journal.stellar"
            akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.stellar"
            akka.persistence.journal.stellar.path = "{{path}}"
            akka.persistence.journal.stellar.durability = {{durability}}
            akka.persistence.snapshot-store.stellar.path = "{{path}}"
            akka.persistence.snapshot-store.stellar.durability = {{durability}}
            akka.actor.serializers.persistence-tck-test = "{{typeof(TestSerializer).AssemblyQualifiedName}}"
            akka.actor.serialization-bindings."{{typeof(TestPayload).AssemblyQualifiedName}}" = persistence-tck-test
            {{extra}}
            """)
            .WithFallback(Akka.Persistence.Persistence.DefaultConfig())
            .WithFallback(StellarPersistence.DefaultConfiguration());
    }

    /// <summary>Deletes <paramref name="directory"/> once its store is closed; a test's leftovers never fail it.</summary>
    public static void Delete(string directory)
    {
        for (var attempt = 0; attempt < 20 && Directory.Exists(directory); attempt++)
        {
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (IOException)
            {
                Thread.Sleep(100);
            }
            catch (UnauthorizedAccessException)
            {
                Thread.Sleep(100);
            }
        }
    }
}
