// gzip and zlib streams by libdeflate at its level 12, once at build time: a near-optimal deflate
// search (the build pays it once, every first load gains: 425 B less than zlib's level 9 over the
// page's first load), and no file name or time in the gzip header, so a build is byte for byte
// repeatable. Any inflater reads its output: it is plain deflate.
import CDeflate

/// `input` as one gzip member (RFC 1952); nil when libdeflate gives nothing back (the asset is
/// then served uncompressed).
func gzip(_ input: [UInt8]) -> [UInt8]? { deflated(input, gzip: true) }

/// `input` as a zlib stream (RFC 1950): a PNG's image data.
func zlibStream(_ input: [UInt8]) -> [UInt8]? { deflated(input, gzip: false) }

/// CRC-32 (ISO 3309, as gzip and PNG use it) of `bytes`.
func crc32(_ bytes: [UInt8]) -> UInt32 { UInt32(bytes.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }) }

private func deflated(_ input: [UInt8], gzip: Bool) -> [UInt8]? {
    guard let compressor = libdeflate_alloc_compressor(12) else { return nil }
    defer { libdeflate_free_compressor(compressor) }
    let bound = gzip ? libdeflate_gzip_compress_bound(compressor, input.count) : libdeflate_zlib_compress_bound(compressor, input.count)
    var out = [UInt8](repeating: 0, count: bound)
    let size = input.withUnsafeBytes { src in
        out.withUnsafeMutableBytes { dst in
            gzip ? libdeflate_gzip_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
                 : libdeflate_zlib_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
        }
    }
    return size > 0 ? Array(out.prefix(size)) : nil
}
