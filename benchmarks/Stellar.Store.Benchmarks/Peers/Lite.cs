using LiteDB;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>
/// LiteDB 5 as an application opens it: one file, direct connection (thread-safe, shared by all callers), a commit
/// per single-document call. Without a password every commit ends with a flush of the file to disk
/// (<c>FileStream.Flush(true)</c>): the <c>fsync</c> promise. With a password the file is wrapped in LiteDB's
/// encrypting stream, which is not a <c>FileStream</c>, so the same flush only reaches the OS: the <c>os-write</c>
/// promise.
/// </summary>
public static class Lite
{
    /// <summary>Opens (or creates) <c>records.db</c> in <paramref name="directory"/>.</summary>
    public static LiteDatabase Open(string directory, string? password = null) => new(new ConnectionString
    {
        Filename = Path.Combine(directory, "records.db"),
        Connection = ConnectionType.Direct,
        Password = password,
    });

    /// <summary>The collection of small records.</summary>
    public static ILiteCollection<SmallRecord> Small(LiteDatabase database) => database.GetCollection<SmallRecord>("records");

    /// <summary>The collection of large records.</summary>
    public static ILiteCollection<LargeRecord> Large(LiteDatabase database) => database.GetCollection<LargeRecord>("large");
}
