import CZlib

/// zlib's inflate, for the tests that read back what the build compressed (the page's gzip
/// files, the icons' PNG data): an inflater we did not write, as a browser's or a PNG reader's.
public enum Inflate {
    /// `packed` (a gzip member or a zlib stream: windowBits 15 + 32 reads either header)
    /// inflated, at most `limit` bytes; nil when zlib refuses it or it is longer.
    public static func bytes(_ packed: [UInt8], limit: Int = 1 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = packed
        var out = [UInt8](repeating: 0, count: limit)
        let result: Int32 = input.withUnsafeMutableBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        return result == Z_STREAM_END ? Array(out.prefix(Int(stream.total_out))) : nil
    }
}
