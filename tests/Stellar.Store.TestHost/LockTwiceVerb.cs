using Stellar.Store.Storage;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>lock-twice &lt;dir&gt;</c>: takes the lock of the store at <c>dir</c>, then tries to take it again in this same
/// process through a second <see cref="FileStorage"/>, prints <c>second refused</c> or <c>second acquired</c>, then
/// prints <c>locked</c> and sleeps until killed. Run with file-locking switches of the runtime set, it shows whether
/// the lock still holds inside one process.
/// </summary>
internal static class LockTwiceVerb
{
    /// <summary>Printed when the second acquisition failed with <see cref="StoreLockedException"/>, as it must.</summary>
    public const string RefusedLine = "second refused";

    /// <summary>Printed when the second acquisition succeeded: two owners of one store.</summary>
    public const string AcquiredLine = "second acquired";

    public static int Run(string[] args) => LockVerb.HoldUntilKilled(args, "lock-twice", TryAgain);

    private static void TryAgain(string directory)
    {
        try
        {
            using (new FileStorage(directory).AcquireLock())
            {
                Console.Out.WriteLine(AcquiredLine);
            }
        }
        catch (StoreLockedException)
        {
            Console.Out.WriteLine(RefusedLine);
        }
    }
}
