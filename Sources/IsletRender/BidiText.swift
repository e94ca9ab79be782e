@preconcurrency import CFriBidi

/// One line of text in the order it is drawn, left to right, after the Unicode bidirectional
/// algorithm and Arabic shaping (joining forms and the lam-alef ligatures) by FriBidi.
public struct VisualLine: Hashable, Sendable {
    /// Code points in visual order, presentation forms for Arabic; format characters removed.
    public var scalars: [Unicode.Scalar]
    /// The paragraph direction resolved from the text (first strong character): right-to-left
    /// lines are right-aligned.
    public var isRightToLeft: Bool
}

public enum BidiText {
    /// Shapes and reorders one line. Digit runs keep their left-to-right order (Unicode's rules
    /// for European numbers), so "الدورة 2 من 3" keeps "2" and "3" readable, and 10 stays 10.
    public static func visualLine(_ text: String) -> VisualLine {
        let logical = text.unicodeScalars.map { FriBidiChar($0.value) }
        guard !logical.isEmpty else { return VisualLine(scalars: [], isRightToLeft: false) }
        var visual = [FriBidiChar](repeating: 0, count: logical.count)
        // FRIBIDI_PAR_ON (neutral): take the direction from the text itself.
        var base = FriBidiParType(rawValue: UInt32(FRIBIDI_TYPE_ON_VAL))
        let ok = logical.withUnsafeBufferPointer { l in
            visual.withUnsafeMutableBufferPointer { v in
                fribidi_log2vis(l.baseAddress, FriBidiStrIndex(l.count), &base, v.baseAddress, nil, nil, nil)
            }
        }
        // FRIBIDI_MASK_RTL is bit 0 of the resolved paragraph type.
        let rtl = base.rawValue & 1 != 0
        let source = ok == 0 ? logical : visual
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(source.count)
        for c in source {
            guard let s = Unicode.Scalar(c), !isInvisible(c) else { continue }
            out.append(s)
        }
        return VisualLine(scalars: out, isRightToLeft: ok != 0 && rtl)
    }

    /// Zero-width and directional format characters, and the fill FriBidi leaves after a ligature.
    static func isInvisible(_ c: UInt32) -> Bool {
        switch c {
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: true
        default: false
        }
    }
}
