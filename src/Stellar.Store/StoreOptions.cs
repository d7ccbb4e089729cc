using System.Diagnostics.Metrics;
using Akka.Actor;
using MessagePack;
using Microsoft.Extensions.Logging;
using Stellar.Store.Codecs;

namespace Stellar.Store;

/// <summary>
/// How a store is opened. Validated once by <see cref="StellarStore.OpenAsync(string, StoreOptions?, CancellationToken)"/>, which names the bad option.
/// Compression and encryption are recorded in the store's manifest when it is created; opening it later with a
/// different encryption setting fails with <see cref="WrongKeyException"/>.
/// </summary>
public sealed class StoreOptions
{
    /// <summary>The least <see cref="PassphraseIterations"/> accepted: below it a passphrase is cheap to guess.</summary>
    public const int MinPassphraseIterations = 100_000;

    /// <summary>
    /// The most <see cref="PassphraseIterations"/> accepted, from the options and from a store's manifest alike, so
    /// that an edited manifest cannot make an open run PBKDF2 for hours (this many take some seconds).
    /// </summary>
    public const int MaxPassphraseIterations = 10_000_000;

    private byte[]? _encryptionKey;
    private string? _encryptionPassphrase;
    private ActorSystem? _actorSystem;
    private ILoggerFactory? _loggerFactory;
    private IMeterFactory? _meterFactory;

    /// <summary>What a completed write survives. Default <see cref="Stellar.Store.Durability.WriteThrough"/>.</summary>
    public Durability Durability { get; init; } = Durability.WriteThrough;

    /// <summary>Block compression for a new store. Default <see cref="Stellar.Store.Compression.None"/>.</summary>
    public Compression Compression { get; init; } = Compression.None;

    /// <summary>
    /// A 32-byte AES-256 key; null leaves the store unencrypted. Exclusive with <see cref="EncryptionPassphrase"/>.
    /// The store reads the array while it opens and keeps no reference to it: the caller may clear it once
    /// <see cref="StellarStore.OpenAsync(string, StoreOptions?, CancellationToken)"/> has completed, and
    /// <see cref="StellarStore.Options"/> does not carry it.
    /// </summary>
    public byte[]? EncryptionKey { get => _encryptionKey; init => _encryptionKey = value; }

    /// <summary>
    /// A passphrase turned into the key by PBKDF2-SHA256 with a random salt kept in the manifest. Like
    /// <see cref="EncryptionKey"/>, it is not carried by <see cref="StellarStore.Options"/>.
    /// </summary>
    public string? EncryptionPassphrase { get => _encryptionPassphrase; init => _encryptionPassphrase = value; }

    /// <summary>
    /// PBKDF2 iterations for a new passphrase-encrypted store, from <see cref="MinPassphraseIterations"/> to
    /// <see cref="MaxPassphraseIterations"/>. Default 600,000. An existing store keeps the count it was created with.
    /// </summary>
    public int PassphraseIterations { get; init; } = 600_000;

    /// <summary>
    /// The size at which the active shard is sealed and a new one started. Default 64 MiB; at least 64 KiB and at
    /// most 1 GiB, so that a shard (this size, or one block when a block is larger) stays well under 2 GiB and every
    /// offset and length within it fits the 32-bit sizes of buffers and block locations.
    /// </summary>
    public long MaxShardBytes { get; init; } = 64L * 1024 * 1024;

    /// <summary>The largest <see cref="MaxShardBytes"/> accepted: 1 GiB.</summary>
    internal const long MaxShardBytesLimit = 1L << 30;

    /// <summary>Writes queued per collection before callers wait (asynchronously). Default 65,536.</summary>
    public int MaxQueuedWrites { get; init; } = 65_536;

    /// <summary>
    /// Bytes of encoded records queued per collection (from the call until the write's task completes) before callers
    /// wait (asynchronously), so a slow disk cannot make memory grow without limit. A write larger than this is
    /// queued once nothing else is. A commit group takes at most a quarter of it (and at least one write). A bulk
    /// import's block counts as one write of its bytes. Default 64 MiB; at least 64 KiB.
    /// </summary>
    public long MaxQueuedBytes { get; init; } = 64L * 1024 * 1024;

    /// <summary>The byte bound of one commit group: a quarter of <see cref="MaxQueuedBytes"/>.</summary>
    internal long MaxGroupBytes => MaxQueuedBytes / 4;

    /// <summary>
    /// Cores used to encode blocks of one group and to decode at open; a compaction, which runs while the game writes,
    /// encodes its output on one core fewer (at least one). Default: the processor count.
    /// </summary>
    public int MaxDegreeOfParallelism { get; init; } = Environment.ProcessorCount;

    /// <summary>
    /// Whether reads return a private copy of each value (deserialized from its bytes) instead of the shared
    /// instance the store holds. Turn on for mutable value classes that callers change after reading.
    /// </summary>
    public bool CopyOnRead { get; init; }

    /// <summary>
    /// Whether each collection's writer actor (and the store's guardian of them) runs on a thread of its own instead of
    /// the .NET thread pool. Off by default. Turn it on for a game that waits synchronously on pool threads for the
    /// store's tasks (<c>.Result</c>, <c>.Wait()</c>): then <c>GetCollection</c>, an index's <c>Ready</c>, single
    /// writes, atomic batches (large ones too) and the store's <c>FlushAsync</c> complete even when every pool thread is
    /// waiting for them, where on the pool the writer's turn waits for a pool thread to come free (with the pool's size
    /// capped, forever): the commits the writer does not make on its turn run on the collection's device thread
    /// instead of the pool. Its costs and gains, measured: a single awaited write
    /// takes a few microseconds longer (the writer's thread wakes for it), many concurrent writers' writes take less
    /// time, and writes across collections take longer; see docs/actors.md.
    /// </summary>
    /// <remarks>
    /// The threads come from a dispatcher the store registers on its actor system under the id
    /// <c>stellar-store.dispatcher</c>, unless that system's configuration (<see cref="ActorSystem"/>) defines that id:
    /// then the writers run on the dispatcher it configures. Each thread ends when its collection's writer stops.
    /// </remarks>
    public bool DedicatedThreads { get; init; }

    /// <summary>
    /// A collection is compacted in the background when the live share of its record bytes falls under this ratio
    /// and the dead bytes reach a sixteenth of <see cref="MaxShardBytes"/>, and also once 64 small sealed shards (under a
    /// sixteenth of <see cref="MaxShardBytes"/> each, as checkpoints leave behind) gathered since its last compaction.
    /// Default 0.5; 0 turns automatic compaction off (<see cref="Collection{TKey,TValue}.CompactAsync"/> still works).
    /// </summary>
    public double CompactionThreshold { get; init; } = 0.5;

    /// <summary>
    /// Values that serialize to more than this many bytes are not kept in memory: the store keeps where they are on
    /// disk and reads them back (a positional read of their block, verified and decoded) on every read. Default
    /// 16 KiB; <see cref="int.MaxValue"/> keeps every value in memory.
    /// </summary>
    public int LargeValueThreshold { get; init; } = 16 * 1024;

    /// <summary>
    /// The clock that tells when a record written with an expiry (<see cref="Collection{TKey,TValue}.UpsertAsync(TValue, TimeSpan, CancellationToken)"/>)
    /// expires, and whose timers run the writers' removal of expired records while a collection is idle. Default: the
    /// system clock. Tests pass their own, to move time on without waiting.
    /// </summary>
    public TimeProvider Clock { get; init; } = TimeProvider.System;

    /// <summary>
    /// Which checkpoints <see cref="StellarStore.CheckpointAsync"/> keeps: applied after each new checkpoint, deleting the
    /// rest. Null (the default) keeps every checkpoint until <see cref="StellarStore.DeleteCheckpoint"/>.
    /// </summary>
    public CheckpointRetention? CheckpointRetention { get; init; }

    /// <summary>
    /// How often each collection's writer removes the records that have expired, with a delete record each (readers stop
    /// seeing them at their time either way). Default 1 second; from 1 millisecond to about 49.7 days (4,294,967,294
    /// milliseconds, the longest a timer takes); <see cref="Timeout.InfiniteTimeSpan"/> turns the background removal off
    /// (<see cref="Collection{TKey,TValue}.RemoveExpiredAsync"/> still removes them).
    /// </summary>
    public TimeSpan ExpirySweepInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>The shortest <see cref="ExpirySweepInterval"/> accepted: a timer counts whole milliseconds, and takes a shorter period as none.</summary>
    internal static readonly TimeSpan MinExpirySweepInterval = TimeSpan.FromMilliseconds(1);

    /// <summary>The longest <see cref="ExpirySweepInterval"/> accepted: the longest due time and period a timer takes.</summary>
    internal static readonly TimeSpan MaxExpirySweepInterval = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    /// <summary>
    /// MessagePack options whose formatters and resolvers go in front of the store's own, for types MessagePack cannot
    /// serialize by default (a struct without a constructor that matches its members, a type from another library) or
    /// that a game wants in its own shape; null (the default): the store's own alone. For example:
    /// <c>MessagePackSerializerOptions.Standard.WithResolver(CompositeResolver.Create([new Vector3Formatter()], [StandardResolver.Instance]))</c>.
    /// </summary>
    /// <remarks>
    /// <para>What it affects: how the keys and values of every collection of this store are written and read (records,
    /// large values, compaction's copies, copy-on-read, the kept index orders, the change feed); not the store's own
    /// records, nor the <c>stellar</c> tool, which reads MessagePack as it is. The same options must be given at every
    /// open: a formatter that writes a type differently, or is missing, makes the records written before fail to decode,
    /// and the open reports them as corrupt blocks.</para>
    /// <para>What the store keeps whatever is given: records are decoded as untrusted data. Options that leave
    /// <see cref="MessagePackSerializerOptions.Security"/> at its default (<see cref="MessagePackSecurity.TrustedData"/>)
    /// get <see cref="MessagePackSecurity.UntrustedData"/>; options with a security of their own must keep its
    /// hash-collision-resistant maps (derive it from <see cref="MessagePackSecurity.UntrustedData"/>, for a different
    /// depth limit), and <see cref="MessagePackSerializerOptions.Compression"/> must be
    /// <see cref="MessagePackCompression.None"/>, or the open fails with an <see cref="ArgumentException"/> naming this
    /// option. Every other setting of the options is kept.</para>
    /// <para>Thread safety: the store calls the formatters and resolvers from many threads at once (writers on the
    /// callers' threads, decoding on every core at open), so they must be thread-safe; MessagePack's own are.</para>
    /// </remarks>
    public MessagePackSerializerOptions? Serializer { get; init; }

    /// <summary>An actor system to run the writers in (for Akka.Hosting users); null: the store creates and owns one.</summary>
    public ActorSystem? ActorSystem { get => _actorSystem; init => _actorSystem = value; }

    /// <summary>
    /// Where the store logs (categories <see cref="StoreTelemetry.LoggerCategory"/> and
    /// <see cref="StoreTelemetry.AkkaLoggerCategory"/>, events listed in <see cref="StoreLogEvents"/>); null (the default)
    /// logs nothing and costs nothing. When the store makes its own actor system, that system's log goes here too instead
    /// of the console. The store keeps the factory and never disposes it. Stellar.Store.Hosting passes the host's.
    /// </summary>
    /// <remarks>Thread safety: the factory and its loggers are called from the store's threads, as any logger factory allows.</remarks>
    public ILoggerFactory? LoggerFactory { get => _loggerFactory; init => _loggerFactory = value; }

    /// <summary>
    /// Creates the <see cref="Meter"/> named <see cref="StoreTelemetry.MeterName"/> that the store's instruments belong to;
    /// null (the default): a meter shared by every store of the process. Stellar.Store.Hosting passes the host's. The
    /// store never disposes the meter: the factory's owner does.
    /// </summary>
    /// <remarks>Thread safety: the factory is called from the thread that opens the store.</remarks>
    public IMeterFactory? MeterFactory { get => _meterFactory; init => _meterFactory = value; }

    /// <summary>
    /// An fsync of a shard file that takes at least this long is logged as <see cref="StoreLogEvents.SlowFsync"/>.
    /// Default 100 ms; zero logs every fsync; <see cref="Timeout.InfiniteTimeSpan"/> none. Every fsync is timed into the
    /// <c>stellar.store.fsync.duration</c> histogram whatever this is.
    /// </summary>
    public TimeSpan SlowFsyncThreshold { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Lets tests create passphrase stores with fewer than <see cref="MinPassphraseIterations"/> iterations, so that
    /// the suite does not spend its time in PBKDF2. Internal: users cannot weaken the bound.
    /// </summary>
    internal bool AllowTestIterations { get; init; }

    /// <summary>
    /// A copy of these options without <see cref="EncryptionKey"/> and <see cref="EncryptionPassphrase"/>, for an open
    /// store to keep: every other option, including ones added later, is carried over.
    /// </summary>
    internal StoreOptions WithoutSecrets()
    {
        var copy = (StoreOptions)MemberwiseClone();
        copy._encryptionKey = null;
        copy._encryptionPassphrase = null;
        return copy;
    }

    /// <summary>
    /// A copy of these options, secrets included, whose writers run in <paramref name="system"/>: how a host hands the
    /// store its own actor system. Every other option, including ones added later, is carried over.
    /// </summary>
    internal StoreOptions InActorSystem(ActorSystem system)
    {
        var copy = (StoreOptions)MemberwiseClone();
        copy._actorSystem = system;
        return copy;
    }

    /// <summary>
    /// A copy of these options, secrets included, that logs to <paramref name="loggerFactory"/> and creates its meter with
    /// <paramref name="meterFactory"/> where they do not name their own: how a host hands the store its services. Every
    /// other option, including ones added later, is carried over.
    /// </summary>
    internal StoreOptions WithHostDiagnostics(ILoggerFactory? loggerFactory, IMeterFactory? meterFactory)
    {
        var copy = (StoreOptions)MemberwiseClone();
        copy._loggerFactory ??= loggerFactory;
        copy._meterFactory ??= meterFactory;
        return copy;
    }

    internal void Validate()
    {
        if (!Enum.IsDefined(Durability))
        {
            throw new ArgumentOutOfRangeException(nameof(Durability), Durability, "Durability must be Buffered, WriteThrough or Fsync.");
        }

        if (!Enum.IsDefined(Compression))
        {
            throw new ArgumentOutOfRangeException(nameof(Compression), Compression, "Compression must be None or Lz4.");
        }

        if (EncryptionKey is { } key && key.Length != 32)
        {
            throw new ArgumentException($"EncryptionKey must be 32 bytes (AES-256); it is {key.Length}.", nameof(EncryptionKey));
        }

        if (EncryptionKey is not null && EncryptionPassphrase is not null)
        {
            throw new ArgumentException("Set EncryptionKey or EncryptionPassphrase, not both.", nameof(EncryptionPassphrase));
        }

        if (EncryptionPassphrase is { Length: 0 })
        {
            throw new ArgumentException("EncryptionPassphrase must not be empty.", nameof(EncryptionPassphrase));
        }

        if (PassphraseIterations < (AllowTestIterations ? 1 : MinPassphraseIterations) || PassphraseIterations > MaxPassphraseIterations)
        {
            throw new ArgumentOutOfRangeException(nameof(PassphraseIterations), PassphraseIterations,
                $"PassphraseIterations must be from {MinPassphraseIterations:N0} to {MaxPassphraseIterations:N0}.");
        }

        if (MaxShardBytes < 64 * 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxShardBytes), MaxShardBytes, "MaxShardBytes must be at least 64 KiB.");
        }

        if (MaxShardBytes > MaxShardBytesLimit)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxShardBytes), MaxShardBytes, "MaxShardBytes must be at most 1 GiB.");
        }

        if (!(CompactionThreshold is >= 0 and < 1))
        {
            throw new ArgumentOutOfRangeException(nameof(CompactionThreshold), CompactionThreshold, "CompactionThreshold must be at least 0 and less than 1.");
        }

        if (LargeValueThreshold < 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(LargeValueThreshold), LargeValueThreshold, "LargeValueThreshold must be at least 1 KiB.");
        }

        if (MaxQueuedWrites < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxQueuedWrites), MaxQueuedWrites, "MaxQueuedWrites must be positive.");
        }

        if (MaxQueuedBytes < 64 * 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxQueuedBytes), MaxQueuedBytes, "MaxQueuedBytes must be at least 64 KiB.");
        }

        if (MaxDegreeOfParallelism < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxDegreeOfParallelism), MaxDegreeOfParallelism, "MaxDegreeOfParallelism must be positive.");
        }

        CheckpointRetention?.Validate();
        if (Clock is null)
        {
            throw new ArgumentNullException(nameof(Clock), "Clock must be set (TimeProvider.System by default).");
        }

        if (SlowFsyncThreshold < TimeSpan.Zero && SlowFsyncThreshold != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(SlowFsyncThreshold), SlowFsyncThreshold, "SlowFsyncThreshold must be zero or positive, or Timeout.InfiniteTimeSpan to log no fsync.");
        }

        if (Serializer is { } serializer)
        {
            if (serializer.Compression != MessagePackCompression.None)
            {
                throw new ArgumentException(
                    $"Serializer.Compression must be None (it is {serializer.Compression}): MessagePack's own compression would change the bytes on disk. Use StoreOptions.Compression, which compresses whole blocks.",
                    nameof(Serializer));
            }

            if (!RecordSerializer.SecurityFor(serializer).HashCollisionResistant)
            {
                throw new ArgumentException(
                    "Serializer.Security turns the untrusted-data protections off; the store decodes every record as untrusted data. Leave Security as it is, or derive it from MessagePackSecurity.UntrustedData.",
                    nameof(Serializer));
            }
        }

        // Checked here, not where the timers are made: a collection's load would fail there, after its writer started.
        if (ExpirySweepInterval != Timeout.InfiniteTimeSpan && (ExpirySweepInterval < MinExpirySweepInterval || ExpirySweepInterval > MaxExpirySweepInterval))
        {
            throw new ArgumentOutOfRangeException(nameof(ExpirySweepInterval), ExpirySweepInterval,
                $"ExpirySweepInterval must be from {MinExpirySweepInterval.TotalMilliseconds:N0} ms to {MaxExpirySweepInterval.TotalMilliseconds:N0} ms (about 49.7 days, the longest a timer takes), or Timeout.InfiniteTimeSpan to turn the background removal off.");
        }
    }
}
