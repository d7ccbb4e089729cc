using Stellar.Store.Storage;

namespace Stellar.Store.TestHost;

/// <summary>
/// <c>lock &lt;dir&gt;</c>: takes the lock of the store at <c>dir</c>, prints <c>locked</c>, then sleeps until the
/// process is killed, so that the operating system, not this code, has to release the lock.
/// </summary>
internal static class LockVerb
{
    /// <summary>The line printed once the lock is held.</summary>
    public const string LockedLine = "locked";

    public static int Run(string[] args) => HoldUntilKilled(args, "lock", whileHeld: null);

    /// <summary>
    /// Takes the lock of the store named by <paramref name="args"/>, runs <paramref name="whileHeld"/> with the
    /// directory, prints <see cref="LockedLine"/> and sleeps until the process is killed.
    /// </summary>
    public static int HoldUntilKilled(string[] args, string verb, Action<string>? whileHeld)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine($"usage: {verb} <store directory>");
            return ExitCodes.Usage;
        }

        try
        {
            using (new FileStorage(args[0]).AcquireLock())
            {
                whileHeld?.Invoke(args[0]);
                Console.Out.WriteLine(LockedLine);
                Console.Out.Flush();
                Thread.Sleep(Timeout.Infinite);
            }

            return ExitCodes.Success;
        }
        catch (StoreLockedException ex)
        {
            Console.Error.WriteLine(ex.Message);
            return ExitCodes.StoreLocked;
        }
    }
}
