using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Stellar.Store.Hosting;

/// <summary>Registers a Stellar.Store store in a host's services.</summary>
/// <remarks>Thread safety: call while the host is being built, from one thread.</remarks>
public static class StellarStoreServiceCollectionExtensions
{
    /// <summary>
    /// Registers a store opened when the host starts and flushed and closed when it stops, configured from
    /// <paramref name="configuration"/> (for example <c>configuration.GetSection("Stellar")</c>): <c>Path</c> and the
    /// names of <see cref="StoreOptions"/>' properties, enums by name (<c>"Durability": "Fsync"</c>), the encryption key
    /// in base64. A value that does not convert or breaks a rule fails the host's start with an
    /// <see cref="OptionsValidationException"/> naming it.
    /// </summary>
    /// <returns><paramref name="services"/>, with <see cref="StellarStoreHost"/> and <see cref="StellarStore"/> registered
    /// (see <see cref="StellarStoreHost"/> for when <see cref="StellarStore"/> can be resolved).</returns>
    public static IServiceCollection AddStellarStore(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        services.AddOptions<StellarStoreOptions>().Configure(options => Bind(configuration, options));
        return services.AddStellarStoreCore();
    }

    /// <summary>
    /// Registers a store opened when the host starts and flushed and closed when it stops, configured by
    /// <paramref name="configure"/>. A bad option fails the host's start with an <see cref="OptionsValidationException"/>
    /// naming it.
    /// </summary>
    /// <returns><paramref name="services"/>, with <see cref="StellarStoreHost"/> and <see cref="StellarStore"/> registered.</returns>
    public static IServiceCollection AddStellarStore(this IServiceCollection services, Action<StellarStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        services.AddOptions<StellarStoreOptions>().Configure(configure);
        return services.AddStellarStoreCore();
    }

    private static IServiceCollection AddStellarStoreCore(this IServiceCollection services)
    {
        services.AddOptions<StellarStoreOptions>().ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<StellarStoreOptions>, StellarStoreOptionsValidator>());
        services.TryAddSingleton(sp => new StellarStoreHost(sp.GetRequiredService<IOptions<StellarStoreOptions>>(), sp));
        services.TryAddSingleton(sp => sp.GetRequiredService<StellarStoreHost>().Store);
        services.AddHostedService<StellarStoreHostedService>();
        return services;
    }

    /// <summary>
    /// Binds the section's keys into the options and the store options alike; a value that does not convert is kept
    /// for validation to report at start, where every other bad option is reported too.
    /// </summary>
    private static void Bind(IConfiguration configuration, StellarStoreOptions options)
    {
        try
        {
            configuration.Bind(options);
            configuration.Bind(options.Store);
        }
        catch (InvalidOperationException e)
        {
            var message = e.InnerException is { } inner ? $"{e.Message} {inner.Message}" : e.Message;

            // The binder quotes the value that failed to convert: a key that is not base64 must not reach the logs, whether
            // it is bound beside Path or under Store, the property it is bound into.
            foreach (var (name, value) in configuration.AsEnumerable(makePathsRelative: true))
            {
                if (value is { Length: > 0 } && name.Split(ConfigurationPath.KeyDelimiter)[^1].Equals(nameof(StoreOptions.EncryptionKey), StringComparison.OrdinalIgnoreCase))
                {
                    message = message.Replace(value, "(hidden)", StringComparison.Ordinal);
                }
            }

            options.BindingError = message;
        }
    }
}
