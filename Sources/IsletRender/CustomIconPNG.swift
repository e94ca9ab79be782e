import CPNG
import IsletIcons

/// PNG as a custom icon, through libpng's simplified reader. Any colour type and bit depth is
/// read as 8-bit grey plus alpha (libpng's conversion); a pixel is lit when its grey is at
/// least 128 (white on black, like the panel and the PNG files Islet writes) and its alpha at
/// least 128 (a transparent pixel is unlit whatever its colour).
///
/// Before libpng sees anything, the chunks are walked here: the size in IHDR is checked first,
/// a chunk running past the end or bytes after IEND are refused, and only the chunks that make
/// the picture (IHDR, PLTE, tRNS, IDAT, IEND) are passed on. Text, ICC profiles and every other
/// ancillary chunk are dropped unread, so no compressed side chunk is ever inflated; the image
/// data itself can only inflate into the rows of a 32×32 picture at most.
enum PNGIcon {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let format = "PNG"

    static func decode(_ b: [UInt8]) throws(CustomIconError) -> (rows: [UInt32], size: IconSize) {
        let (kept, size) = try essentialChunks(b)
        let n = size.pixels
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        var pixels = [UInt8](repeating: 0, count: n * n * 2)
        let ok = kept.withUnsafeBytes { src -> Bool in
            guard png_image_begin_read_from_memory(&image, src.baseAddress, src.count) != 0 else { return false }
            // The header was checked above; libpng's reading of it must agree before it writes.
            guard image.width == UInt32(n), image.height == UInt32(n) else { return false }
            image.format = UInt32(PNG_FORMAT_GA)
            return pixels.withUnsafeMutableBytes { dst in
                png_image_finish_read(&image, nil, dst.baseAddress, Int32(n * 2), nil) != 0
            }
        }
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        png_image_free(&image)
        guard ok else { throw .malformed(format: format, detail: message.isEmpty ? "libpng cannot read it" : "libpng: \(message)") }
        var rows = [UInt32](repeating: 0, count: n)
        for y in 0..<n {
            for x in 0..<n where pixels[(y * n + x) * 2] >= 128 && pixels[(y * n + x) * 2 + 1] >= 128 {
                rows[y] |= 1 << UInt32(x)
            }
        }
        return (rows, size)
    }

    /// The signature and the chunks libpng needs, copied as they are (CRCs included; libpng
    /// checks them), and the icon size from IHDR.
    static func essentialChunks(_ b: [UInt8]) throws(CustomIconError) -> ([UInt8], IconSize) {
        var out = signature
        out.reserveCapacity(b.count)
        var i = signature.count
        var size: IconSize?
        var ended = false
        while !ended {
            guard b.count - i >= 12 else {
                throw .truncated(format: format, detail: i == b.count ? "no IEND chunk" : "a chunk header is cut off")
            }
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            let type = Array(b[(i + 4)..<(i + 8)])
            guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw .malformed(format: format, detail: "a chunk type is not four letters")
            }
            let name = String(decoding: type, as: UTF8.self)
            guard length <= b.count - i - 12 else {
                throw .truncated(format: format, detail: "chunk \(name) claims \(length) bytes, \(b.count - i - 12) remain")
            }
            let end = i + 12 + length
            if size == nil {
                guard name == "IHDR", length == 13 else { throw .malformed(format: format, detail: "IHDR is not the first chunk") }
                let d = i + 8
                let w = Int(b[d]) << 24 | Int(b[d + 1]) << 16 | Int(b[d + 2]) << 8 | Int(b[d + 3])
                let h = Int(b[d + 4]) << 24 | Int(b[d + 5]) << 16 | Int(b[d + 6]) << 8 | Int(b[d + 7])
                size = try CustomIcon.size(format, width: w, height: h)
            } else if name == "IHDR" {
                throw .malformed(format: format, detail: "a second IHDR chunk")
            }
            switch name {
            case "IHDR", "PLTE", "tRNS", "IDAT", "IEND": out += b[i..<end]
            default:
                // Bit 5 of the first letter clear (upper case): a chunk a reader must understand.
                guard type[0] & 0x20 != 0 else { throw .malformed(format: format, detail: "unknown critical chunk \(name)") }
            }
            ended = name == "IEND"
            i = end
        }
        guard i == b.count else { throw .trailingData(format: format, bytes: b.count - i) }
        guard let size else { throw .truncated(format: format, detail: "no IHDR chunk") }
        return (out, size)
    }
}
