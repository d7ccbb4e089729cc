using LiteDB;
using Stellar.Store.Benchmarks.Model;

namespace Stellar.Store.Benchmarks.Peers;

/// <summary>
/// LiteDB 5 as an application opens it: one file, direct connection (thread-safe, shared by all callers), a commit
/// per single-document call. Optional password: LiteDB's AES encryption of the data file.
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
