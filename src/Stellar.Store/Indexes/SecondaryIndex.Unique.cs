using Stellar.Store.Codecs;

namespace Stellar.Store.Indexes;

/// <summary>A unique index's checks, made as the writer stages each write, before anything is written.</summary>
internal sealed partial class SecondaryIndex<TIndexKey, TKey, TValue> : IUniqueIndex<TKey, TValue>
{
    /// <summary>Writer only, for the group being staged: each record's index key once the group commits (or that it is deleted).</summary>
    private readonly Dictionary<TKey, (bool Alive, TIndexKey IndexKey)> _stagedKeyOf;

    /// <summary>
    /// Writer only, for the group being staged: the record each index key was given to, and where in the undo list. A
    /// null index key never enters it: records without a key do not share one. Its keys are told apart by the index's
    /// order, as the stored records' are, not by the key type's equality, which may hold two keys distinct that the
    /// order holds equal (a key class without <c>Equals</c>, or one ordered without regard to case).
    /// </summary>
#pragma warning disable CS8714 // Null index keys are kept out (see Stage).
    private readonly SortedDictionary<TIndexKey, (TKey Key, int Position)> _stagedHolder;
#pragma warning restore CS8714

    public Exception? Stage(TKey key, bool deleted, TValue? value, int partStart, List<Action> undo)
    {
        TIndexKey indexKey = default!;
        if (!deleted)
        {
            try
            {
                indexKey = _selector(value!);
            }
            catch (Exception e)
            {
                return new ArgumentException($"Unique index '{Name}' of collection '{Collection}' could not compute the key of record '{key}': {e.Message}. Nothing was stored.", nameof(value), e);
            }
        }

        // A null index key is no key: like SQL's unique constraints, records without one never clash.
        var claims = !deleted && indexKey is not null;
        if (Stopped is { } stopped)
        {
            // Its entries stopped with it, so whether a key is free cannot be told: no key is given until it is dropped.
            return claims
                ? new ArgumentException($"Unique index '{Name}' of collection '{Collection}' is not kept any more ({stopped.Message}), so it cannot tell whether the key '{indexKey}' of record '{key}' is free. Nothing was stored. Drop the index (DropIndexAsync) and declare it again.", nameof(value), stopped)
                : null;
        }

        if (claims && ReadBack.WhyNot(indexKey) is { } why)
        {
            // The key a reopen computes from the record as read back would be another, perhaps one another record holds:
            // the index could then not be built.
            return new ArgumentException($"Unique index '{Name}' of collection '{Collection}' cannot hold the key '{indexKey}' of record '{key}': {why}, so after a reopen the record would hold another key, which another record may hold. Nothing was stored.", nameof(value));
        }

        // Every comparison of index keys (the key type's own, which may throw) comes before anything is staged.
        (TKey Key, int Position)? holder = null;
        var hadHolder = false;
        (TKey Key, int Position) holderBefore = default;
        try
        {
            var (hadKey, hadIndexKey) = KeyOf(key);
            if (claims && !(hadKey && Order.IndexKeys.Compare(hadIndexKey, indexKey) == 0))
            {
                holder = Holder(indexKey, key);
            }

            hadHolder = claims && _stagedHolder.TryGetValue(indexKey!, out holderBefore);
        }
        catch (Exception e)
        {
            return new ArgumentException($"Unique index '{Name}' of collection '{Collection}' could not compare the key of record '{key}' with the keys it holds ({e.Message}), so it cannot tell whether the key is free. Nothing was stored.", nameof(value), e);
        }

        if (holder is { } taken)
        {
            var rejection = new UniqueConstraintException(Collection, Name, indexKey, key, taken.Key);
            return taken.Position >= partStart ? new Actors.RoundConflictException(rejection) : rejection;
        }

        var hadStaged = _stagedKeyOf.TryGetValue(key, out var stagedBefore);
        _stagedKeyOf[key] = (!deleted, indexKey);
        if (claims)
        {
            _stagedHolder[indexKey!] = (key, undo.Count);
        }

        undo.Add(() =>
        {
            if (hadStaged)
            {
                _stagedKeyOf[key] = stagedBefore;
            }
            else
            {
                _stagedKeyOf.Remove(key);
            }

            if (!claims)
            {
                return;
            }

            if (hadHolder)
            {
                _stagedHolder[indexKey!] = holderBefore;
            }
            else
            {
                _stagedHolder.Remove(indexKey!);
            }
        });
        return null;
    }

    public void ClearStaged()
    {
        _stagedKeyOf.Clear();
        _stagedHolder.Clear();
    }

    /// <summary>Record <paramref name="key"/>'s index key once the staged group commits, if it exists then.</summary>
    private (bool Alive, TIndexKey IndexKey) KeyOf(TKey key)
    {
        if (_stagedKeyOf.TryGetValue(key, out var staged))
        {
            return staged;
        }

        if (_listed.TryGetValue(key, out var listed))
        {
            return (true, listed.IndexKey);
        }

        return LiveSlot(key) is var slot and >= 0 ? (true, Run.IndexKeyAt(slot)) : (false, default!);
    }

    /// <summary>
    /// The record other than <paramref name="key"/> that has <paramref name="indexKey"/> once the staged group commits,
    /// with the undo position of the write that gave it (-1 when it is stored), or null.
    /// </summary>
    private (TKey Key, int Position)? Holder(TIndexKey indexKey, TKey key)
    {
        if (_stagedHolder.TryGetValue(indexKey, out var staged) && !Same(staged.Key, key) && Has(staged.Key, indexKey))
        {
            return staged;
        }

        // The stored record with the index key: its current entry, the one no version has ended, in the run or the list.
        var run = Run;
        for (var slot = run.LowerBound(IndexEntry<TIndexKey, TKey, TValue>.Before(indexKey), Order);
             slot < run.Count && Order.IndexKeys.Compare(run.IndexKeyAt(slot), indexKey) == 0;
             slot++)
        {
            if (run.UntilAt(slot) == long.MaxValue && !Same(run.KeyAt(slot), key) && Has(run.KeyAt(slot), indexKey))
            {
                return (run.KeyAt(slot), -1);
            }
        }

        var entries = Entries.Ascending(IndexEntry<TIndexKey, TKey, TValue>.Before(indexKey));
        while (entries.MoveNext(out var node) && Order.IndexKeys.Compare(node.IndexKey, indexKey) == 0)
        {
            if (node.Until == long.MaxValue && !Same(node.Key, key) && Has(node.Key, indexKey))
            {
                return (node.Key, -1);
            }
        }

        return null;
    }

    /// <summary>Whether record <paramref name="key"/> has <paramref name="indexKey"/> once the staged group commits.</summary>
    private bool Has(TKey key, TIndexKey indexKey) => KeyOf(key) is (true, var held) && Order.IndexKeys.Compare(held, indexKey) == 0;

    private bool Same(TKey a, TKey b) => _listed.Comparer.Equals(a, b);

    /// <summary>
    /// The first index key that two of <paramref name="sorted"/> share, as the exception a build fails with. A record
    /// that expired by <paramref name="now"/> shares none: no reader sees it, and the writer removes it before it checks
    /// the next write.
    /// </summary>
    private UniqueConstraintException? FirstDuplicate(ReadOnlySpan<RunEntry<TIndexKey, TKey, TValue>> sorted, long now)
    {
        RunEntry<TIndexKey, TKey, TValue>? holder = null;
        foreach (var entry in sorted)
        {
            if (entry.IndexKey is null || !entry.Node!.LiveAt(now))
            {
                continue;
            }

            if (holder is { } held && Order.IndexKeys.Compare(held.IndexKey, entry.IndexKey) == 0)
            {
                return new UniqueConstraintException(Collection, Name, entry.IndexKey, entry.Key, held.Key);
            }

            holder = entry;
        }

        return null;
    }
}
