import IsletFrame

/// A frame drawn with Unicode half blocks, two pixel rows per text line, for terminals
/// (the desktop demo and `isletctl watch`).
public enum TerminalPreview {
    /// One line per two pixel rows, `width` characters each: ▀ top lit, ▄ bottom lit,
    /// █ both, space neither. Lines end in "\n".
    public static func render(_ b: Bitmap) -> String {
        var s = ""
        s.reserveCapacity((b.width * 3 + 1) * ((b.height + 1) / 2))
        var y = 0
        while y < b.height {
            for x in 0..<b.width {
                switch (b[x, y], b[x, y + 1]) {
                case (true, true): s.append("█")
                case (true, false): s.append("▀")
                case (false, true): s.append("▄")
                case (false, false): s.append(" ")
                }
            }
            s.append("\n")
            y += 2
        }
        return s
    }

    /// The half-block picture in a thin frame, so a dark panel still shows its outline.
    public static func framed(_ b: Bitmap) -> String {
        let border = String(repeating: "─", count: b.width)
        var out = "┌" + border + "┐\n"
        for line in render(b).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            out += "│" + line + "│\n"
        }
        return out + "└" + border + "┘\n"
    }
}
