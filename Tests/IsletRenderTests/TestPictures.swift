// Test pictures built by hand from ASCII art: PBM text, packed P4 and PNG files whose deflate
// streams are stored blocks, so every byte a test sends is visible here (no encoder under test).

/// ASCII art (`#` lit) as PBM and PNG files.
enum TestPictures {
    static func p1(_ art: [String]) -> [UInt8] {
        var s = "P1\n# a test icon\n\(art.first?.count ?? 0) \(art.count)\n"
        for row in art { s += row.map { $0 == "#" ? "1" : "0" }.joined(separator: " ") + "\n" }
        return Array(s.utf8)
    }

    static func p4(_ art: [String]) -> [UInt8] {
        let w = art.first?.count ?? 0
        var out = Array("P4 \(w) \(art.count)\n".utf8)
        for row in art {
            var bytes = [UInt8](repeating: 0, count: (w + 7) / 8)
            for (x, c) in row.enumerated() where c == "#" { bytes[x / 8] |= 0x80 >> UInt8(x % 8) }
            out += bytes
        }
        return out
    }

    /// PNG colour types used here: 0 grey, 2 RGB, 3 palette, 6 RGBA.
    static func png(width: Int, height: Int, colorType: UInt8, bitDepth: UInt8, rows: [[UInt8]],
                    before: [(String, [UInt8])] = []) -> [UInt8] {
        var ihdr = be32(width) + be32(height)
        ihdr += [bitDepth, colorType, 0, 0, 0]
        var raw: [UInt8] = []
        for r in rows { raw += [0] + r }   // filter type 0 (none) on every row
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", ihdr)
        for (name, data) in before { out += chunk(name, data) }
        out += chunk("IDAT", zlibStored(raw))
        out += chunk("IEND", [])
        return out
    }

    /// 1-bit grey PNG: `#` is a 1 bit (white).
    static func png1(_ art: [String]) -> [UInt8] {
        let w = art.first?.count ?? 0
        let rows = art.map { row in
            var bytes = [UInt8](repeating: 0, count: (w + 7) / 8)
            for (x, c) in row.enumerated() where c == "#" { bytes[x / 8] |= 0x80 >> UInt8(x % 8) }
            return bytes
        }
        return png(width: w, height: art.count, colorType: 0, bitDepth: 1, rows: rows)
    }

    static func chunk(_ name: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(name.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static func be32(_ v: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let last: UInt8 = i + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    /// RFC 4648 base64, for the tests' requests.
    static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let v = (0..<3).reduce(0) { $0 << 8 | ($1 < n ? Int(bytes[i + $1]) : 0) }
            for k in 0..<4 { out.append(k <= n ? table[(v >> (18 - 6 * k)) & 63] : "=") }
            i += 3
        }
        return out
    }
}
