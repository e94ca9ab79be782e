import IsletErrno
import IsletSystem
import IsletFrame
import CPNG
import CPNGEncode

/// Writing a frame as a file a person can open: plain PBM (P1, `1` is a lit pixel) or PNG.
public enum ImageFile {
    public enum WriteError: Error, CustomStringConvertible {
        case unsupportedExtension(String)
        case cannotWrite(path: String, reason: String)
        public var description: String {
            switch self {
            case .unsupportedExtension(let p): "\(p): the output must end in .pbm or .png (or be - for PBM on standard output)"
            case .cannotWrite(let p, let r): "\(p): cannot write: \(r)"
            }
        }
    }

    /// Plain PBM text: a lit pixel is `1` (PBM's black), so the file reads like the panel in a diff.
    public static func pbm(_ b: Bitmap) -> String {
        var s = "P1\n\(b.width) \(b.height)\n"
        s.reserveCapacity(s.utf8.count + b.height * (b.width * 2 + 1))
        for y in 0..<b.height {
            for x in 0..<b.width {
                s.append(b[x, y] ? "1" : "0")
                s.append(x + 1 == b.width ? "\n" : " ")
            }
        }
        return s
    }

    /// Parses plain PBM (P1), as written by `pbm(_:)`; comments (`#`) are allowed.
    public static func parsePBM(_ text: String) -> Bitmap? {
        var tokens: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            tokens += content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        }
        guard tokens.count >= 3, tokens[0] == "P1", let w = Int(tokens[1]), let h = Int(tokens[2]),
              w > 0, h > 0, w <= 4096, h <= 4096 else { return nil }
        // Plain PBM may also pack the digits without separators.
        let bits = tokens.dropFirst(3).joined().utf8
        guard bits.count == w * h else { return nil }
        var b = Bitmap(width: w, height: h)
        for (i, c) in bits.enumerated() {
            switch c {
            case UInt8(ascii: "1"): b[i % w, i / w] = true
            case UInt8(ascii: "0"): break
            default: return nil
            }
        }
        return b
    }

    /// Writes `b` to `path` by its extension; `-` writes PBM to standard output. `scale`
    /// enlarges PNG output only (PBM stays one character per pixel, for diffs).
    public static func write(_ b: Bitmap, to path: String, scale: Int = 1) throws(WriteError) {
        if path == "-" {
            do { try StandardStream.output.write(Array(pbm(b).utf8)) }
            catch { throw .cannotWrite(path: "standard output", reason: error.errno.description) }
            return
        }
        let lower = path.lowercased()
        if lower.hasSuffix(".pbm") {
            try writeBytes(Array(pbm(b).utf8), to: path)
        } else if lower.hasSuffix(".png") {
            try writePNG(b, to: path, scale: max(1, min(scale, 64)))
        } else {
            throw .unsupportedExtension(path)
        }
    }

    /// Lit pixels white on black, like the panel; 8-bit grey through libpng's simplified API.
    public static func writePNG(_ b: Bitmap, to path: String, scale: Int) throws(WriteError) {
        guard let bytes = png(b, scale: scale) else {
            throw .cannotWrite(path: path, reason: "libpng could not encode a \(b.width)x\(b.height) image at scale \(scale)")
        }
        try writeBytes(bytes, to: path)
    }

    /// The bitmap as PNG bytes in memory (1-bit grey, lit pixels white), each pixel
    /// `scale`×`scale`: what the page's `frame.png` and Home Assistant's image entity send.
    /// nil when libpng refuses (it names no reason worth more than that here). A 1-bit image
    /// with the Up filter: the scaled rows that repeat cost deflate almost nothing (docs/WEB.md).
    public static func png(_ b: Bitmap, scale: Int) -> [UInt8]? {
        guard (1...64).contains(scale), b.width > 0, b.height > 0 else { return nil }
        var bits = [UInt8](repeating: 0, count: b.width * b.height)
        for y in 0..<b.height {
            for x in 0..<b.width where b[x, y] { bits[y * b.width + x] = 1 }
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let ok = bits.withUnsafeBufferPointer {
            islet_png_gray1($0.baseAddress, UInt32(b.width), UInt32(b.height), UInt32(scale), &out, &size)
        }
        guard ok == 0, let out else { return nil }
        defer { islet_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// 8-bit RGB pixels, row by row (`width * height * 3` bytes): the gallery's photo-like pictures.
    public static func writeRGBPNG(_ rgb: [UInt8], width: Int, height: Int, to path: String) throws(WriteError) {
        guard width > 0, height > 0, rgb.count == width * height * 3 else {
            throw .cannotWrite(path: path, reason: "\(rgb.count) bytes are not a \(width)x\(height) RGB image")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_RGB)
        let ok = rgb.withUnsafeBytes { buf in
            png_image_write_to_file(&image, path, 0, buf.baseAddress, Int32(width * 3), nil)
        }
        if ok == 0 {
            let reason = withUnsafeBytes(of: image.message) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            png_image_free(&image)
            throw .cannotWrite(path: path, reason: reason.isEmpty ? Errno.current.description : reason)
        }
    }

    private static func writeBytes(_ bytes: [UInt8], to path: String) throws(WriteError) {
        do { try FileSystem.writeFile(path, bytes) } catch { throw .cannotWrite(path: path, reason: error.errno.description) }
    }
}
