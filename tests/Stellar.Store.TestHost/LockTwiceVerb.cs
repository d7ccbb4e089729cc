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

    public static int Run(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: lock-twice <store directory>");
            return ExitCodes.Usage;
        }

        try
        {
            using (new FileStorage(args[0]).AcquireLock())
            {
                try
                {
                    using (new FileStorage(args[0]).AcquireLock())
                    {
                        Console.Out.WriteLine(AcquiredLine);
                    }
                }
                catch (StoreLockedException)
                {
                    Console.Out.WriteLine(RefusedLine);
                }

                Console.Out.WriteLine(LockVerb.LockedLine);
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
