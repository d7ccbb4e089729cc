using Microsoft.Extensions.Options;

namespace Stellar.Store.Hosting;

/// <summary>
/// Checks <see cref="StellarStoreOptions"/> when the host starts, with the engine's own rules, so that a bad option stops
/// the start with a message naming it instead of surfacing later as a failed open.
/// </summary>
/// <remarks>Thread safety: stateless; may be called from any thread.</remarks>
internal sealed class StellarStoreOptionsValidator : IValidateOptions<StellarStoreOptions>
{
    public ValidateOptionsResult Validate(string? name, StellarStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var failures = new List<string>();
        if (options.BindingError is { } binding)
        {
            failures.Add(binding);
        }

        if (string.IsNullOrWhiteSpace(options.Path))
        {
            failures.Add($"{nameof(StellarStoreOptions)}.{nameof(StellarStoreOptions.Path)} is required: the directory the store is kept in.");
        }
        else
        {
            try
            {
                System.IO.Path.GetFullPath(options.Path);
            }
            catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
            {
                failures.Add($"{nameof(StellarStoreOptions)}.{nameof(StellarStoreOptions.Path)} is not a valid path: {e.Message}");
            }
        }

        if (options.Store is null)
        {
            failures.Add($"{nameof(StellarStoreOptions)}.{nameof(StellarStoreOptions.Store)} must not be null.");
        }
        else
        {
            try
            {
                options.Store.Validate();
            }
            catch (ArgumentException e)
            {
                failures.Add($"{nameof(StellarStoreOptions)}.{nameof(StellarStoreOptions.Store)}.{e.ParamName}: {e.Message}");
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
