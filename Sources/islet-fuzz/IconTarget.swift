// The custom-icon decoder (IsletRender's CustomIcon): a PNG or PBM from a request, as bytes
// and as the base64 text a request carries.
import IsletIcons
import IsletRender

enum IconTarget {
    static func run(_ bytes: [UInt8]) {
        let direct = try? CustomIcon.decode(bytes: bytes)
        if let icon = direct {
            // An accepted icon has every size at its width and height, and something lit.
            for size in IconSize.allCases {
                let rows = icon.rows(size)
                if rows.count != size.pixels { fail("icon: \(rows.count) rows at \(size.pixels) px") }
                if rows.contains(where: { $0 >> UInt32(size.pixels) != 0 }) { fail("icon: a pixel outside \(size.pixels) px") }
            }
            if !IconSize.allCases.contains(where: { icon.rows($0).contains { $0 != 0 } }) { fail("icon: accepted blank") }
        }
        // The same bytes as base64 text (only when they fit its bound) decode to the same icon,
        // and the raw bytes read as text go through the base64 checks.
        if bytes.count <= CustomIcon.maxBytes {
            let again = try? CustomIcon.decode(base64: base64(bytes))
            if again != direct { fail("icon: base64 of the bytes decodes differently") }
        }
        _ = try? CustomIcon.decode(base64: String(decoding: bytes, as: UTF8.self))
    }

    static func base64(_ b: [UInt8]) -> String {
        let t = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            let n = min(3, b.count - i)
            var v = 0
            for k in 0..<3 { v = v << 8 | (k < n ? Int(b[i + k]) : 0) }
            for k in 0..<4 { out.append(k <= n ? t[(v >> (18 - 6 * k)) & 63] : UInt8(ascii: "=")) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
