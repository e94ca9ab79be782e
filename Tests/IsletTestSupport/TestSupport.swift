#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// SplitMix64: a small seedable generator, the same sequence on every machine, so a failing
/// randomized test can print its seed and be replayed.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    public mutating func bool() -> Bool { next() & 1 == 1 }
}

/// An environment variable's value, if set.
public func environmentValue(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// Iterations of a randomized test: `ISLET_FUZZ_ITERATIONS` (a positive number) overrides the default.
public func fuzzIterations(_ fallback: Int) -> Int {
    guard let s = environmentValue("ISLET_FUZZ_ITERATIONS"), let n = Int(s), n > 0 else { return fallback }
    return n
}

/// A fresh private directory for one test, under /tmp.
public func makeTempDir() -> String {
    var template = Array("/tmp/islet-test-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.flatMap { mkdtemp($0) } }
    return p.map { String(cString: $0) } ?? "/tmp/islet-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
}

/// Removes a test's directory and everything in it (a test cleans up also when it fails).
public func removeTree(_ path: String) {
    guard path.hasPrefix("/tmp/islet-") else { return }
    try? FileManager.default.removeItem(atPath: path)
}

/// A whole file's bytes, or nil when it cannot be read (the system's tzdata in the zone tests).
public func readBinaryFile(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
}

/// A whole text file, or nil when it cannot be read.
public func readTextFile(_ path: String) -> String? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n == 0 { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A capture written by hand from the SSD1306 datasheet (128×32): bring-up, a full clear, then a
/// 2×1-page window with two bytes. Shared by the replay library's and isletctl's tests.
public let handWrittenSSD1306Capture = """
    # hand-written: SSD1306 128x32
    0 3c 00 ae a8 1f da 02 8d 14 a1 c8 20 00
    1000000 3c 00 21 00 7f 22 00 03
    2000000 3c 40 \(Array(repeating: "00", count: 512).joined(separator: " "))
    3000000 3c 00 21 05 06 22 01 01 af
    4000000 3c 40 ff 81

    """
