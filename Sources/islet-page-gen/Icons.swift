// The page's icons, drawn at build time from the pill's own art (the meditation icon as the timer
// shows it, its rows read from IsletRender's IconArtTimer.swift, where `#` is lit): white on
// black like the glass, each art pixel a square. A test holds the rows read here equal to
// `Icon.meditation.art`, so the page's icon is the pill's.

/// File name → bytes: the home-screen icons (192 and 512 px: the 32-px art on a 64-px field, so
/// it lies inside the middle 80 % a launcher may crop to a circle), the tab's icon (the 16-px
/// art at 32 px) and the same as /favicon.ico. A build that cannot read the art stops, named.
func drawnIcons(_ source: String, file: String) -> [String: [UInt8]] {
    do throws(AssetError) {
        let large = try artRows(source, icon: "meditationArt", size: "large", file: file)
        let medium = try artRows(source, icon: "meditationArt", size: "medium", file: file)
        let home = field(large, side: 64)
        let tab = field(medium, side: 16)
        guard let p192 = png(home, scale: 3), let p512 = png(home, scale: 8), let p32 = png(tab, scale: 2) else {
            fail("zlib could not compress the page's icons")
        }
        return ["icon-192.png": p192, "icon-512.png": p512, "favicon.png": p32, "favicon.ico": ico(p32, side: 32)]
    } catch {
        fail(error.description)
    }
}

/// The rows of `static let ICON = IconArt(… SIZE: ["…", …] …)` in `source`, each of '.' and '#',
/// as many rows as columns (12, 16 or 32).
func artRows(_ source: String, icon: String, size: String, file: String) throws(AssetError) -> [[Bool]] {
    guard let start = source.firstRange(of: "static let \(icon) = IconArt(") else { throw AssetError(file, "no `static let \(icon) = IconArt(`") }
    let rest = source[start.upperBound...]
    guard let open = rest.firstRange(of: "\(size): ["), let close = rest[open.upperBound...].firstIndex(of: "]") else {
        throw AssetError(file, "\(icon) has no `\(size): [` rows")
    }
    let rows = rest[open.upperBound..<close].split(separator: "\"", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map { $0.element }
    let side = ["small": 12, "medium": 16, "large": 32][size] ?? 0
    guard rows.count == side, rows.allSatisfy({ $0.count == side && $0.allSatisfy { $0 == "." || $0 == "#" } }) else {
        throw AssetError(file, "\(icon).\(size) is not \(side) rows of \(side) '.' or '#'")
    }
    return rows.map { $0.map { $0 == "#" } }
}

/// `art` centred on a black square of `side` pixels.
func field(_ art: [[Bool]], side: Int) -> [[Bool]] {
    var b = [[Bool]](repeating: [Bool](repeating: false, count: side), count: side)
    let at = (side - art.count) / 2
    for (y, row) in art.enumerated() {
        for (x, lit) in row.enumerated() where lit { b[at + y][at + x] = true }
    }
    return b
}

/// A 1-bit greyscale PNG of `bits` (lit white), each pixel `scale`×`scale`.
func png(_ bits: [[Bool]], scale: Int) -> [UInt8]? {
    let width = (bits.first?.count ?? 0) * scale, height = bits.count * scale
    var raw: [UInt8] = []
    for row in bits {
        var line = [UInt8](repeating: 0, count: 1 + (width + 7) / 8)   // filter 0 (None), then the bits
        for x in 0..<width where row[x / scale] { line[1 + x / 8] |= 0x80 >> UInt8(x % 8) }
        for _ in 0..<scale { raw += line }
    }
    guard let packed = zlibStream(raw) else { return nil }
    let ihdr = be32(width) + be32(height) + [1, 0, 0, 0, 0]   // depth 1, greyscale, deflate, filters, no interlace
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", packed) + chunk("IEND", [])
}

func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

/// A PNG chunk: length, type, data, the CRC-32 of type and data.
func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be32(data.count) + body + be32(Int(crc32(body)))
}

/// A PNG in an ICO container (one image; PNG inside ICO is what every browser reads).
func ico(_ png: [UInt8], side: Int) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    let header = le16(0) + le16(1) + le16(1)
    let entry = [UInt8(side & 0xFF), UInt8(side & 0xFF), 0, 0] + le16(1) + le16(32) + le32(png.count) + le32(6 + 16)
    return header + entry + png
}
