using System.Diagnostics;

namespace Stellar.Store.Snapshots;

/// <summary>
/// The pins of a <see cref="VersionedMap{TKey,TValue}"/>: the versions open snapshots read, which hold the writer's
/// cuts back (the horizon) until they go.
/// </summary>
/// <remarks>Thread safety: every member here is for any thread, without locks (the pins are a concurrent dictionary).</remarks>
internal sealed partial class VersionedMap<TKey, TValue>
{
    /// <summary>Pins held now: open snapshots, enumerations of a query in progress, a running compaction.</summary>
    public int PinCount
    {
        get
        {
            var count = 0;
            foreach (var (_, n) in _pins)
            {
                count += n;
            }

            return count;
        }
    }

    /// <summary>Whether a snapshot older than <paramref name="version"/> is still pinned.</summary>
    public bool IsPinnedBelow(long version)
    {
        foreach (var (pinned, _) in _pins)
        {
            if (pinned < version)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Pins the newest published version so that its versions stay readable until <see cref="Unpin"/>.
    /// Returns the pinned state.
    /// </summary>
    public PublishedState Pin()
    {
        while (true)
        {
            var state = Volatile.Read(ref _published);
            _pins.AddOrUpdate(state.Version, 1, static (_, n) => n + 1);
            Interlocked.MemoryBarrier();

            // Publish reads the pins only after it has published a newer version, so the pin is sure to be seen
            // only if nothing newer is published yet: else it may have been missed, and the horizon moved past it.
            if (ReferenceEquals(Volatile.Read(ref _published), state) && Volatile.Read(ref _horizon) <= state.Version)
            {
                return state;
            }

            Release(state.Version);
        }
    }

    /// <inheritdoc />
    public bool TryPinAt(long version, PublishedState expected)
    {
        Debug.Assert(version == expected.Version || (expected.PartRound != 0 && version == expected.Version - 1), "a pin at the published version, or below a round's part");
        _pins.AddOrUpdate(version, 1, static (_, n) => n + 1);
        Interlocked.MemoryBarrier();

        // As in Pin: while the state is still published, every later publish reads the pins after this one is there,
        // and the publish of this state kept the version readable (a part's publish holds its horizon below the part).
        if (ReferenceEquals(Volatile.Read(ref _published), expected) && Volatile.Read(ref _horizon) <= version)
        {
            return true;
        }

        Release(version);
        return false;
    }

    /// <summary>Pins <paramref name="version"/> once more, while a pin there is already held (it keeps the version readable).</summary>
    public void PinHeld(long version)
    {
        Debug.Assert(_pins.ContainsKey(version), "a second pin only beside a held one");
        _pins.AddOrUpdate(version, 1, static (_, n) => n + 1);
    }

    /// <summary>Releases a pin taken by <see cref="Pin"/>. Any thread, a finalizer's included.</summary>
    public void Unpin(long version)
    {
        // A newer version exists and no older pin is left: this pin may be what held the writer's cuts back. The
        // flag is cleared by Publish before it reads the pins, and set here after the pin is gone, so either that
        // Publish sees the pin gone or this call sees the flag clear and signals again.
        if (Release(version)
            && Volatile.Read(ref _published).Version > version
            && !IsPinnedBelow(version)
            && Released is { } released
            && Interlocked.CompareExchange(ref _releaseSignalled, 1, 0) == 0)
        {
            released();
        }
    }

    /// <summary>Drops one pin at <paramref name="version"/>; returns whether it was the last one there.</summary>
    private bool Release(long version)
    {
        while (true)
        {
            var count = _pins.TryGetValue(version, out var n) ? n : 0;
            Debug.Assert(count > 0, "Unpin of a version that is not pinned.");
            if (count == 0)
            {
                return false;
            }

            if (count == 1)
            {
                if (_pins.TryRemove(new KeyValuePair<long, int>(version, count)))
                {
                    return true;
                }
            }
            else if (_pins.TryUpdate(version, count - 1, count))
            {
                return false;
            }
        }
    }
}
