using Akka.Configuration;

namespace Stellar.Store.Persistence.Tests.Journal;

/// <summary>A plugin's block with a bad setting stops the plugin with a <see cref="ConfigurationException"/> that names the setting.</summary>
public sealed class PluginSettingsTests
{
    [Fact]
    public void From_WithAPathThatIsNoPath_ThrowsAConfigurationExceptionNamingIt()
    {
        var config = ConfigurationFactory.ParseString("path = \"saves\\u0000world1\"")
            .WithFallback(StellarPersistence.DefaultConfiguration().GetConfig(StellarPersistence.JournalPluginId));
        Assert.Contains('\0', config.GetString("path"));
        var failure = Assert.Throws<ConfigurationException>(() => PluginSettings.From(config, StellarPersistence.JournalPluginId));
        Assert.Contains($"{StellarPersistence.JournalPluginId}.path is not a valid path", failure.Message, StringComparison.Ordinal);
    }
}
