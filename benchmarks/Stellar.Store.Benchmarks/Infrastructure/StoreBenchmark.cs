using LiteDB;
using Stellar.Store.Benchmarks.Model;
using Stellar.Store.Benchmarks.Peers;
using ZoneTree;

namespace Stellar.Store.Benchmarks.Infrastructure;

/// <summary>
/// Base of every benchmark that keeps stores on disk. Each store lives in a directory named after the benchmark
/// method that uses it, so that after the stores are closed the size of each directory is recorded against its
/// method (the <c>Disk KiB</c> column) and the directory deleted.
/// </summary>
public abstract class StoreBenchmark
{
    private readonly List<Action> _closers = new();

    /// <summary>Creates the benchmark's own folder under <see cref="Paths.StoresRoot"/>.</summary>
    protected StoreBenchmark()
    {
        Root = Path.Combine(Paths.StoresRoot, $"{GetType().Name}-{Guid.NewGuid():n}");
    }

    /// <summary>This instance's folder; one subfolder per store.</summary>
    protected string Root { get; }

    /// <summary>Opens a Stellar store of small records in a fresh directory named <paramref name="method"/>.</summary>
    protected Collection<int, SmallRecord> OpenStellar(string method, StoreOptions options) =>
        ReopenStellar(Fresh(method), options);

    /// <summary>Opens (again) the Stellar store in <paramref name="directory"/>.</summary>
    protected Collection<int, SmallRecord> ReopenStellar(string directory, StoreOptions options) =>
        ReopenStellar(directory, options, out _);

    /// <summary>Opens (again) the Stellar store in <paramref name="directory"/>, handing out the store itself.</summary>
    protected Collection<int, SmallRecord> ReopenStellar(string directory, StoreOptions options, out StellarStore store)
    {
        var (opened, records) = Peers.Stellar.OpenSmall(directory, options);
        _closers.Add(() => opened.DisposeAsync().AsTask().GetAwaiter().GetResult());
        store = opened;
        return records;
    }

    /// <summary>Opens a Stellar store of large records in a fresh directory named <paramref name="method"/>.</summary>
    protected Collection<int, LargeRecord> OpenStellarLarge(string method, StoreOptions options)
    {
        var (store, records) = Peers.Stellar.OpenLarge(Fresh(method), options);
        _closers.Add(() => store.DisposeAsync().AsTask().GetAwaiter().GetResult());
        return records;
    }

    /// <summary>Opens a LiteDB database in a fresh directory named <paramref name="method"/>.</summary>
    protected LiteDatabase OpenLite(string method, string? password = null) => ReopenLite(Fresh(method), password);

    /// <summary>Opens (again) the LiteDB database in <paramref name="directory"/>.</summary>
    protected LiteDatabase ReopenLite(string directory, string? password = null)
    {
        var database = Lite.Open(directory, password);
        _closers.Add(database.Dispose);
        return database;
    }

    /// <summary>Opens a SQLite database in a fresh directory named <paramref name="method"/>.</summary>
    protected Sqlite OpenSqlite(string method, SqliteSync sync) => ReopenSqlite(Fresh(method), sync);

    /// <summary>Opens (again) the SQLite database in <paramref name="directory"/>.</summary>
    protected Sqlite ReopenSqlite(string directory, SqliteSync sync)
    {
        var sqlite = new Sqlite(directory, sync);
        _closers.Add(sqlite.Dispose);
        return sqlite;
    }

    /// <summary>Opens a ZoneTree in a fresh directory named <paramref name="method"/>.</summary>
    protected IZoneTree<int, SmallRecord> OpenZone(string method, bool bulkLoad = false) => ReopenZone(Fresh(method), bulkLoad);

    /// <summary>Opens (again) the ZoneTree in <paramref name="directory"/>; see <see cref="Zone.Open"/> for <paramref name="bulkLoad"/>.</summary>
    protected IZoneTree<int, SmallRecord> ReopenZone(string directory, bool bulkLoad = false)
    {
        var tree = Zone.Open(directory, bulkLoad);
        _closers.Add(tree.Dispose);
        return tree;
    }

    /// <summary>Creates <c>data.bin</c> in a fresh directory named <paramref name="method"/> for the plain-file ceiling.</summary>
    protected FileStream OpenFile(string method)
    {
        var stream = new FileStream(Path.Combine(Fresh(method), "data.bin"), FileMode.CreateNew, FileAccess.Write, FileShare.None, 64 * 1024);
        _closers.Add(stream.Dispose);
        return stream;
    }

    /// <summary>Runs <paramref name="close"/> when the stores are next closed.</summary>
    protected void OnClose(Action close) => _closers.Add(close);

    /// <summary>A fresh, empty directory named <paramref name="method"/>.</summary>
    protected string Fresh(string method) => Paths.FreshDirectory(Root, method);

    /// <summary>Closes every store opened since the last call, newest first.</summary>
    protected void CloseStores()
    {
        for (var i = _closers.Count - 1; i >= 0; i--)
        {
            _closers[i]();
        }

        _closers.Clear();
    }

    /// <summary>Closes the stores, records each directory's size against the method it is named after, deletes them.</summary>
    protected void CloseMeasureAndDelete()
    {
        CloseStores();
        if (!Directory.Exists(Root))
        {
            return;
        }

        foreach (var directory in Directory.GetDirectories(Root))
        {
            SideMetrics.Record(this, Path.GetFileName(directory), SideMetrics.DiskBytes, Paths.SizeOnDisk(directory));
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Deletes the benchmark's folder.</summary>
    protected void DeleteRoot()
    {
        CloseStores();
        if (Directory.Exists(Root))
        {
            Directory.Delete(Root, recursive: true);
        }
    }
}

/// <summary>
/// The durability pairings, as benchmark categories: a row is compared only with rows of its own pairing, and each
/// pairing has its own baseline. The pairing is what the row promises when its operation completes, not what the
/// product is called: LiteDB 5 fsyncs every commit, so it sits with the fsync rows.
/// </summary>
public static class Pairing
{
    /// <summary>
    /// A completed write is in the OS (survives a crash of the process, not of the machine), no fsync per write:
    /// SQLite WAL + NORMAL (the baseline), ZoneTree's <c>Sync</c> log, LiteDB with a password, our WriteThrough.
    /// </summary>
    public const string OsWrite = "os-write";

    /// <summary>A completed write is fsynced (survives power loss): SQLite WAL + FULL (the baseline), LiteDB, our Fsync.</summary>
    public const string Fsync = "fsync";

    /// <summary>
    /// Nothing is promised per write; the timed region ends with a flush that makes every write durable: our
    /// Buffered mode. No peer promises this, so these rows stand alone.
    /// </summary>
    public const string FlushAtEnd = "flush-at-end";

    /// <summary>Reads and opens: durability does not apply.</summary>
    public const string Read = "read";

    /// <summary>Pure computation in memory, no I/O.</summary>
    public const string Cpu = "cpu";

    /// <summary>Every pairing, for the report.</summary>
    public static IReadOnlyList<string> All { get; } = [OsWrite, Fsync, FlushAtEnd, Read, Cpu];
}

/// <summary>The ceiling for single writes: the same record bytes (MessagePack), written with a plain <see cref="FileStream"/>.</summary>
public static class RecordBytes
{
    /// <summary>The MessagePack bytes of each record.</summary>
    public static byte[][] Of(IEnumerable<SmallRecord> records) =>
        records.Select(r => MessagePack.MessagePackSerializer.Serialize(r)).ToArray();
}
