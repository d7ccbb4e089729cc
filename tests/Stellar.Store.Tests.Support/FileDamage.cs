namespace Stellar.Store.Tests.Support;

/// <summary>Damage a disk does to a file after the store wrote and verified it.</summary>
public static class FileDamage
{
    /// <summary>
    /// Flips a bit of the byte <paramref name="fromEnd"/> bytes before the end of the file at <paramref name="path"/>,
    /// while the store may hold it open; flipping it again puts it back.
    /// </summary>
    public static void FlipBit(string path, int fromEnd)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
        file.Position = file.Length - fromEnd;
        var b = file.ReadByte();
        file.Position = file.Length - fromEnd;
        file.WriteByte((byte)(b ^ 0x40));
    }
}
