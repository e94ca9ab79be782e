// The page's icons, drawn at build time by the pill's own drawing (IsletIcons: the meditation
// icon's masks, `Bitmap.draw` as every presentation draws an icon): white on black like the
// glass, each pixel of the frame a square of the PNG.
import IsletFrame
import IsletIcons

/// File name → bytes: the home-screen icons (192 and 512 px: the 32-px icon on a 64-px frame, so
/// it lies inside the middle 80 % a launcher may crop to a circle), the tab's icon (the 16-px
/// icon at 32 px) and the same as /favicon.ico. A build whose icons cannot be made stops, named.
func drawnIcons() -> [String: [UInt8]] {
    let (home, tab) = iconFrames()
    guard let p192 = png(home, scale: 3), let p512 = png(home, scale: 8), let p32 = png(tab, scale: 2) else {
        fail("libdeflate could not compress the page's icons")
    }
    return ["icon-192.png": p192, "icon-512.png": p512, "favicon.png": p32, "favicon.ico": ico(p32, side: 32)]
}

/// The home-screen frame (64 px, the large icon at 16, 16) and the tab's (16 px, the medium icon).
func iconFrames() -> (home: Bitmap, tab: Bitmap) {
    var home = Bitmap(width: 64, height: 64)
    home.draw(Icon.meditation.image, size: .large, x: 16, y: 16)
    var tab = Bitmap(width: 16, height: 16)
    tab.draw(Icon.meditation.image, size: .medium, x: 0, y: 0)
    return (home, tab)
}

/// A 1-bit greyscale PNG of `frame` (lit white), each pixel `scale`×`scale`.
func png(_ frame: Bitmap, scale: Int) -> [UInt8]? {
    let width = frame.width * scale, height = frame.height * scale
    var raw: [UInt8] = []
    for y in 0..<frame.height {
        var line = [UInt8](repeating: 0, count: 1 + (width + 7) / 8)   // filter 0 (None), then the bits
        for x in 0..<width where frame[x / scale, y] { line[1 + x / 8] |= 0x80 >> UInt8(x % 8) }
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
