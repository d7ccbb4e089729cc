using System.Globalization;
using Stellar.Store.Tests.Api;
using Xunit.Sdk;

namespace Stellar.Store.Tests.Reliability;

/// <summary>
/// What a damaged store may load, judged against the test's own copy of what was written
/// (<see cref="TemplateHistory"/>), never against the store itself.
/// </summary>
internal static class DecoderOutcome
{
    /// <summary>Every record exactly as written.</summary>
    public const string Loaded = "loaded every record";

    /// <summary>A torn tail was cut and reported; each collection holds the state after some prefix of its writes.</summary>
    public const string LoadedAfterCut = "loaded a prefix of the writes after cutting a torn tail";

    /// <summary>
    /// A resealed edit (checksums, and the AES-GCM tag with the right key, recomputed) is a valid block or manifest
    /// that says something else; nothing can tell it from one the store wrote. The collection it does not touch
    /// must still be exact.
    /// </summary>
    public const string LoadedResealed = "loaded what a resealed edit says";

    /// <summary>
    /// The last blocks of the active shard were removed whole, at a block boundary: the file is what it would be had
    /// those writes never reached the disk (a lost unsynced tail), so the store opens at the state before them, with
    /// nothing to cut. The collection it does not touch must still be exact.
    /// </summary>
    public const string LoadedWithoutRemovedTail = "loaded the state before blocks removed whole from the end";

    private const string Refused = "refused at ";

    /// <summary>Whether <paramref name="outcome"/> is one of the outcomes above or a refusal (its type checked where it was thrown).</summary>
    public static bool IsKnown(string outcome) =>
        outcome is Loaded or LoadedAfterCut or LoadedResealed or LoadedWithoutRemovedTail || outcome.StartsWith(Refused, StringComparison.Ordinal);

    /// <summary>Classifies a load, or throws naming the case if it holds records that no prefix of the writes explains.</summary>
    public static string Of(TemplateHistory history, List<Player> players, List<Chunk> chunks, bool cut, Damage damage, string context)
    {
        var p = TemplateHistory.Find(history.Players, players.Select(x => (x.Id.ToString(CultureInfo.InvariantCulture), TemplateHistory.Describe(x))).ToList());
        var c = TemplateHistory.Find(history.Chunks, chunks.Select(x => (x.Id, TemplateHistory.Describe(x))).ToList());
        if (p == TemplateHistory.Match.Final && c == TemplateHistory.Match.Final)
        {
            return cut ? LoadedAfterCut : Loaded;
        }

        // A resealed block changes one shard, so one collection; a resealed manifest may leave a collection out
        // (or name it otherwise), which opens it empty, but cannot make up records.
        if (damage == Damage.ResealedBlock && (p == TemplateHistory.Match.Final || c == TemplateHistory.Match.Final))
        {
            return LoadedResealed;
        }

        if (damage == Damage.ResealedManifest && p is TemplateHistory.Match.Final or TemplateHistory.Match.Empty && c is TemplateHistory.Match.Final or TemplateHistory.Match.Empty)
        {
            return LoadedResealed;
        }

        if (damage == Damage.TailBlocksRemoved && !cut
            && ((p == TemplateHistory.Match.Final && c is TemplateHistory.Match.Earlier or TemplateHistory.Match.Empty)
                || (c == TemplateHistory.Match.Final && p is TemplateHistory.Match.Earlier or TemplateHistory.Match.Empty)))
        {
            return LoadedWithoutRemovedTail;
        }

        if (cut && damage != Damage.ResealedManifest && p != TemplateHistory.Match.None && c != TemplateHistory.Match.None)
        {
            return LoadedAfterCut;
        }

        throw new XunitException(
            $"{context}: loaded players {p} and chunks {c} (Final = as written, Earlier = a prefix, None = never written), " +
            $"{(cut ? "with" : "without")} a reported cut, after {damage}");
    }

    /// <summary>What a case did to the template's files.</summary>
    public enum Damage
    {
        /// <summary>Bytes changed without recomputing checksums: caught, never loaded as records.</summary>
        Unsealed,

        /// <summary>A block edited and resealed.</summary>
        ResealedBlock,

        /// <summary>The manifest edited and resealed.</summary>
        ResealedManifest,

        /// <summary>Bytes changed without recomputing checksums, whose only effect was to remove a shard's last blocks whole.</summary>
        TailBlocksRemoved,
    }
}
