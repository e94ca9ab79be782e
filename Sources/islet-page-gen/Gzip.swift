// gzip by zlib, once at build time: level 9 (the build pays once, every load gains), and no file
// name or time in the header, so a build is byte for byte repeatable.
import CZlib

/// `input` as one gzip member; nil when zlib fails (the asset is then served uncompressed).
func gzip(_ input: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    // windowBits 15 + 16: the gzip wrapper; memLevel 9: the most memory, the best ratio.
    guard deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        return nil
    }
    defer { deflateEnd(&stream) }
    var source = input
    var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 64)
    let result: Int32 = source.withUnsafeMutableBufferPointer { src in
        out.withUnsafeMutableBufferPointer { dst in
            stream.next_in = src.baseAddress
            stream.avail_in = UInt32(src.count)
            stream.next_out = dst.baseAddress
            stream.avail_out = UInt32(dst.count)
            return deflate(&stream, Z_FINISH)
        }
    }
    guard result == Z_STREAM_END else { return nil }
    return Array(out.prefix(Int(stream.total_out)))
}
