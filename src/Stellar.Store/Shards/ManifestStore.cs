using System.Diagnostics;
using Stellar.Store.Codecs;
using Stellar.Store.Format;
using Stellar.Store.Storage;

namespace Stellar.Store.Shards;

/// <summary>
/// The one owner of the store's manifest: it reads it at open (authenticating an encrypted store's), keeps it in
/// memory, hands out collection and shard ids, records what is known of each shard, and applies every change as one
/// step with the atomic replace of the file (generation one on, signed when the store is encrypted). Shard chains and
/// compaction send it requests; no other type changes a <see cref="ManifestCollection"/>.
/// </summary>
/// <remarks>
/// <para>Thread safety: every member may be called from any thread. Collections roll shards and compact on their own
/// threads, and unserialized, two replaces would race on the temporary file, so every request holds one lock from its
/// change to the end of its replace. Entries are immutable and replaced whole, so a chain reads its own entry without
/// the lock.</para>
/// <para>Outcome unknown: a replace that throws may have taken effect (the rename happened and only the directory
/// fsync failed), so its change is never undone: memory keeps the new state, the generation stays advanced, and the
/// exception propagates to the collection whose request it was, which faults and deletes nothing that either
/// manifest could name. Memory stays a state that is safe to write: a request names only files already complete on
/// disk, and the manifest is written whole, so the next replace (whichever collection's) carries the change too,
/// which is as correct as the replace having worked.</para>
/// </remarks>
internal sealed partial class ManifestStore
{
    private readonly IStorage _storage;
    private readonly string _path;
    private readonly Manifest _manifest;
    private readonly object _lock = new();
    private readonly Compression _compression;

    /// <summary>Collections added whose replace threw, while no replace since has worked: saved again when asked for.</summary>
    private readonly HashSet<string> _unsaved = new(StringComparer.Ordinal);

    /// <summary>
    /// Per collection, the next shard id <see cref="ReserveShardId"/> hands out when it is past the entry's
    /// <see cref="ManifestCollection.NextShardId"/> (under <see cref="_lock"/>). Kept out of the entry, so that no replace
    /// saves an id handed out for a new shard before a replace lists that shard: a copy of such a manifest put back
    /// later would count the shard, full of writes by then, as a roll a crash cut short, and the open would delete it.
    /// </summary>
    private readonly Dictionary<uint, uint> _reservedPast = new();

    /// <summary>Past every collection id the directory's shard files use (see <see cref="AdoptDirectory"/>).</summary>
    private uint _nextCollectionId = 1;
    private bool _closed;

    private ManifestStore(IStorage storage, string path, Manifest manifest, Compression compression)
    {
        _storage = storage;
        _path = path;
        _manifest = manifest;
        _compression = compression;
        IsUnauthenticated = manifest.IsUnsigned;
        OpenedGeneration = manifest.Generation;
    }

    /// <summary>
    /// Whether the manifest found at open was an encrypted store's without a MAC (format 1): nothing but its format
    /// vouches for what it lists, so the open deletes no file it does not list.
    /// </summary>
    public bool IsUnauthenticated { get; }

    /// <summary>The generation of the manifest found at open (0 for a new store), before open rewrote it.</summary>
    public ulong OpenedGeneration { get; }

    /// <summary>The generation of the manifest now: one more with every replace, whether or not it reported success.</summary>
    public ulong Generation
    {
        get
        {
            lock (_lock)
            {
                return _manifest.Generation;
            }
        }
    }

    /// <summary>Every collection's current entry.</summary>
    public IReadOnlyList<ManifestCollection> Collections
    {
        get
        {
            lock (_lock)
            {
                return _manifest.Collections.ToArray();
            }
        }
    }

    /// <summary>
    /// At open, once every listed shard of every collection was found and verified, before any file is deleted: writes
    /// the manifest in the current format, with the compression the options ask for, when the file is older or was never
    /// written (generation 0: a new store; format 1 recorded no generation, and is older). An encrypted store's manifest
    /// is signed from here on. Another compression alone waits for <see cref="RecordCompression"/>.
    /// </summary>
    public void CompleteOpen()
    {
        lock (_lock)
        {
            if (_manifest.FormatVersion < Manifest.CurrentFormatVersion || _manifest.Generation == 0)
            {
                _manifest.Compression = (byte)_compression;
                Replace();
            }
        }
    }

    /// <summary>
    /// At the end of a successful open: records the compression the options ask for when the manifest names another.
    /// Blocks say how they were compressed, so the option may change between opens and applies to new blocks; it is
    /// written only here, so that an open that still refuses the store (a manifest older than a part's shard, see
    /// <see cref="StaleManifestException"/>) leaves the manifest as it found it.
    /// </summary>
    public void RecordCompression()
    {
        lock (_lock)
        {
            if (_manifest.Compression != (byte)_compression)
            {
                _manifest.Compression = (byte)_compression;
                Replace();
            }
        }
    }

    /// <summary>
    /// At open, once every chain removed its obsolete files: moves the next collection id past every collection id
    /// the directory's shard files use (a manifest older than its shards must not give a new collection the files of
    /// one it lost), and returns the files the manifest does not name, in ordinal order.
    /// </summary>
    public string[] AdoptDirectory()
    {
        var files = _storage.List();
        lock (_lock)
        {
            var known = new HashSet<string>(StringComparer.Ordinal) { StoreFileNames.Manifest, StoreFileNames.Lock };
            foreach (var entry in _manifest.Collections)
            {
                known.UnionWith(entry.Shards.Select(s => StoreFileNames.Shard(entry.Id, s)));
            }

            // The id ffffffff is never handed out, so a file that uses it moves nothing.
            _nextCollectionId = files.Select(f => StoreFileNames.TryParseShard(f, out var id, out _) && id < uint.MaxValue ? id : 0).Append(0u).Max() + 1;
            // An index's order is the store's own file, which every open checks before it trusts it.
            return files.Where(f => !known.Contains(f) && !StoreFileNames.IsIndexOrder(f)).Order(StringComparer.Ordinal).ToArray();
        }
    }

    /// <summary>The current entry of collection <paramref name="collectionId"/>.</summary>
    public ManifestCollection Collection(uint collectionId)
    {
        lock (_lock)
        {
            return Find(collectionId);
        }
    }

    /// <summary>
    /// The entry of collection <paramref name="name"/>, added and saved when there is none yet (with an id past every
    /// collection id in use), or saved again when its earlier save threw and nothing has saved since.
    /// </summary>
    /// <exception cref="InvalidOperationException">The collection exists with other key or value types, or no collection id is left to give it.</exception>
    public ManifestCollection GetOrAddCollection(string name, string keyType, string valueType)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            var entry = _manifest.Collections.Find(c => c.Name == name);
            if (entry is null)
            {
                var id = Math.Max(_manifest.Collections.Count == 0 ? 1 : _manifest.Collections.Max(c => c.Id) + 1UL, _nextCollectionId);
                if (id >= uint.MaxValue)
                {
                    throw new InvalidOperationException(
                        $"Collection '{name}' cannot be added: no collection id is left (a shard file in the folder uses one near {uint.MaxValue}).");
                }

                entry = new ManifestCollection { Name = name, Id = (uint)id, KeyType = keyType, ValueType = valueType };
                _manifest.Collections.Add(entry);
                _unsaved.Add(name);
                Replace();
            }
            else if (entry.KeyType != keyType || entry.ValueType != valueType)
            {
                throw new InvalidOperationException(
                    $"Collection '{name}' holds {entry.KeyType} -> {entry.ValueType}; it was asked for as {keyType} -> {valueType}.");
            }
            else if (_unsaved.Contains(name))
            {
                Replace();
            }

            return entry;
        }
    }

    /// <summary>
    /// Records collection <paramref name="name"/> with value type <paramref name="to"/> when it is recorded with
    /// <paramref name="from"/>: for the store's own collections, whose records an older format stored as another type
    /// that the new one reads. Does nothing otherwise.
    /// </summary>
    public void RetypeValues(string name, string from, string to)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            if (_manifest.Collections.Find(c => c.Name == name) is { } entry && entry.ValueType == from)
            {
                Publish(Copy(entry, valueType: to));
                Replace();
            }
        }
    }

    /// <summary>
    /// Hands out the next shard id of a collection for a shard it plans. Kept apart from the entry, so no replace saves
    /// it before the one that lists the shard (<see cref="RollShard"/>): a manifest on disk has handed out a new shard's
    /// id only once it lists it. An id handed out but never listed is simply skipped.
    /// </summary>
    public uint ReserveShardId(uint collectionId)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            var id = NextFree(collectionId);
            ThrowIfPastLastId(collectionId, id, 1);
            _reservedPast[collectionId] = id + 1;
            return id;
        }
    }

    /// <summary>
    /// Hands out <paramref name="count"/> consecutive shard ids of a collection and makes that durable before any of
    /// them is used (a compaction's outputs: so that no nonce is ever reused, even after a crash). Returns the first.
    /// </summary>
    public uint ReserveShardIds(uint collectionId, int count)
    {
        Debug.Assert(count > 0, "a reservation takes at least one id");
        lock (_lock)
        {
            ThrowIfClosed();
            var first = NextFree(collectionId);
            ThrowIfPastLastId(collectionId, first, count);
            Publish(Copy(Find(collectionId), nextShardId: first + (uint)count));
            Replace();
            return first;
        }
    }

    /// <summary>
    /// Lists a new active shard <paramref name="shardId"/> (its file and header already durable), with its salt and
    /// first block sequence, and seals the shard it follows when <paramref name="sealedLength"/> is given (that
    /// shard's whole length on disk, and <paramref name="lastSequence"/> its last block).
    /// </summary>
    public void RollShard(uint collectionId, uint shardId, byte[] salt, ulong firstSequence, long? sealedLength, ulong? lastSequence)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            var entry = Find(collectionId);
            Debug.Assert(shardId < NextFree(collectionId) && !entry.Shards.Contains(shardId), "a new shard's id was handed out and is not listed yet");
            var details = new Dictionary<uint, ManifestShard>(entry.ShardDetails)
            {
                [shardId] = new ManifestShard { Salt = salt, FirstSequence = firstSequence },
            };
            if (sealedLength is { } length && entry.Shards.Count > 0)
            {
                var sealingId = entry.Shards[^1];
                if (!(entry.ShardDetails.TryGetValue(sealingId, out var old) && old.IsSealed))
                {
                    details[sealingId] = new ManifestShard { Salt = old?.Salt, FirstSequence = old?.FirstSequence, SealedLength = length, LastSequence = lastSequence };
                }
            }

            Publish(Copy(entry, shards: [.. entry.Shards, shardId], details: details, nextShardId: Math.Max(entry.NextShardId, shardId + 1)));
            Replace();
        }
    }

    /// <summary>
    /// A compaction's swap: lists <paramref name="outputs"/> (complete, flushed, sealed shard files described by
    /// <paramref name="outputDetails"/>) in place of the compacted <paramref name="prefix"/> of the chain, in one
    /// replace, recording <paramref name="compactedThrough"/>, the last block sequence the prefix held. Refused, with
    /// nothing changed, when the chain no longer starts with <paramref name="prefix"/>.
    /// </summary>
    public void ReplaceChain(uint collectionId, IReadOnlyList<uint> prefix, IReadOnlyList<uint> outputs, IReadOnlyDictionary<uint, ManifestShard> outputDetails, ulong compactedThrough)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            var entry = Find(collectionId);
            if (!entry.Shards.Take(prefix.Count).SequenceEqual(prefix))
            {
                throw new InvalidOperationException("The shard chain changed under a compaction.");
            }

            Debug.Assert(outputs.All(id => outputDetails.TryGetValue(id, out var d) && d.IsSealed && id < entry.NextShardId), "every output shard was handed out, is described and sealed");
            var shards = outputs.Concat(entry.Shards.Skip(prefix.Count)).ToArray();
            var details = entry.ShardDetails.Where(d => !prefix.Contains(d.Key)).Concat(outputs.Select(id => KeyValuePair.Create(id, outputDetails[id])))
                .ToDictionary(d => d.Key, d => d.Value);
            Publish(Copy(entry, shards: shards, details: details, compactedThrough: compactedThrough));
            Replace();
        }
    }

    /// <summary>
    /// At open: records <paramref name="shardIds"/> as the collection's kept shards (see
    /// <see cref="ManifestCollection.KeptShards"/>: unlisted files with blocks that this manifest, or the one an earlier
    /// open kept them under, never handed out), so that no later open deletes them, and moves its next shard id past
    /// them and past <paramref name="lastFound"/>, the highest id of such a file, blocks or none, so that no id is
    /// handed out twice. An id of <see cref="uint.MaxValue"/> is never handed out, and so is ignored at every open
    /// without being recorded: the manifest cannot count past it. Kept in memory; the next replace saves it, except after an unauthenticated manifest: this open
    /// signed that one, and the files it left out have ids it handed out, so they are saved as kept at once, before a
    /// later open can judge them by the signed manifest.
    /// </summary>
    public void KeepShards(uint collectionId, IReadOnlyCollection<uint> shardIds, uint? lastFound)
    {
        lock (_lock)
        {
            var entry = Find(collectionId);
            var next = lastFound is { } last and < uint.MaxValue ? Math.Max(entry.NextShardId, last + 1) : entry.NextShardId;
            Publish(Copy(entry, nextShardId: next, kept: shardIds.Where(id => id < uint.MaxValue).Order().ToArray()));
            if (IsUnauthenticated)
            {
                Replace();
            }
        }
    }

    /// <summary>
    /// The bytes of a manifest of this store (format, codecs, encryption parameters, signed with its key) that lists
    /// <paramref name="collections"/>, in this manifest's order, instead of the store's own: a checkpoint's. The store's
    /// manifest is not changed.
    /// </summary>
    public byte[] SerializeCut(IReadOnlyCollection<ManifestCollection> collections)
    {
        lock (_lock)
        {
            ThrowIfClosed();
            var order = _manifest.Collections.Select(c => c.Id).ToList();
            var cut = new Manifest
            {
                Generation = _manifest.Generation,
                Compression = _manifest.Compression,
                Encryption = _manifest.Encryption,
                MacKey = _manifest.MacKey,
                Collections = collections.OrderBy(c => order.IndexOf(c.Id)).ToList(),
            };
            return cut.Serialize();
        }
    }

    /// <summary>At the store's close: refuses every later request and zeroes the key that signs the manifest.</summary>
    public void Close()
    {
        lock (_lock)
        {
            _closed = true;
            KeyMaterial.Zero(_manifest.MacKey);
        }
    }

    internal static ManifestCollection Copy(ManifestCollection entry, IReadOnlyList<uint>? shards = null,
        IReadOnlyDictionary<uint, ManifestShard>? details = null, uint? nextShardId = null, string? valueType = null, ulong? compactedThrough = null,
        IReadOnlyList<uint>? kept = null) => new()
    {
        Name = entry.Name,
        Id = entry.Id,
        KeyType = entry.KeyType,
        ValueType = valueType ?? entry.ValueType,
        Shards = shards ?? entry.Shards,
        ShardDetails = details ?? entry.ShardDetails,
        NextShardId = nextShardId ?? entry.NextShardId,
        CompactedThrough = compactedThrough ?? entry.CompactedThrough,

        // An empty list clears them: the manifest writes none rather than an empty one.
        KeptShards = kept is null ? entry.KeptShards : kept.Count == 0 ? null : kept,
    };

    /// <summary>The next shard id of collection <paramref name="collectionId"/> that no request has handed out.</summary>
    private uint NextFree(uint collectionId)
    {
        Debug.Assert(Monitor.IsEntered(_lock), "ids are handed out under the manifest's lock");
        return Math.Max(Find(collectionId).NextShardId, _reservedPast.GetValueOrDefault(collectionId));
    }

    /// <summary>
    /// Refuses to hand out <paramref name="count"/> ids from <paramref name="first"/> when the manifest could not record
    /// the next id past them: every listed id lies below it. Only a shard file with an id near the end of the range,
    /// put in the folder, moves the next id there; the write fails rather than save a manifest no open accepts.
    /// </summary>
    private static void ThrowIfPastLastId(uint collectionId, uint first, int count)
    {
        if ((ulong)first + (ulong)count > uint.MaxValue)
        {
            throw new IOException(
                $"Collection {collectionId} has no shard id left to hand out: a shard file in the folder with an id near {uint.MaxValue} moved its next id to {first}.");
        }
    }

    private ManifestCollection Find(uint collectionId)
    {
        Debug.Assert(Monitor.IsEntered(_lock), "entries are read under the manifest's lock");
        return _manifest.Collections.Find(c => c.Id == collectionId)
            ?? throw new InvalidOperationException($"The manifest has no collection {collectionId}.");
    }

    private void Publish(ManifestCollection entry)
    {
        Debug.Assert(Monitor.IsEntered(_lock), "entries are replaced under the manifest's lock");
        _manifest.Collections[_manifest.Collections.FindIndex(c => c.Id == entry.Id)] = entry;
    }

    /// <summary>Replaces the manifest file with memory's state. Not undone when it throws: see the remarks above.</summary>
    private void Replace()
    {
        Debug.Assert(Monitor.IsEntered(_lock), "two replaces would race on the temporary file");
        _storage.ReplaceAtomically(StoreFileNames.Manifest, _manifest.Serialize());
        _unsaved.Clear();
    }

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(_closed, this);
}
