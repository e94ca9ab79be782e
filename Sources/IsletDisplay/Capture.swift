import IsletSystem
import IsletErrno
import IsletFrame

/// One captured transaction: when, to which address, and the bytes after the address byte.
public struct CaptureRecord: Sendable, Hashable {
    public var nanoseconds: UInt64
    public var address: UInt8
    public var bytes: [UInt8]

    public init(nanoseconds: UInt64, address: UInt8, bytes: [UInt8]) {
        self.nanoseconds = nanoseconds
        self.address = address
        self.bytes = bytes
    }
}

public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line, 0 when the whole file is concerned.
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

/// The capture text format (docs/DISPLAY.md): one line per transaction,
/// `<ns since the file was opened, decimal> <address, 2 lowercase hex digits> <bytes, 2-digit lowercase hex, single spaces>`;
/// lines starting with `#` are comments.
public enum CaptureFormat {
    public static func line(_ r: CaptureRecord) -> String {
        var s = String(r.nanoseconds) + " " + Hex.byte(r.address)
        s.reserveCapacity(s.utf8.count + r.bytes.count * 3)
        for b in r.bytes {
            s += " "
            s += Hex.byte(b)
        }
        return s
    }

    /// Parses a whole capture. Blank lines and `#` comments are skipped; anything else that is not
    /// exactly the format is an error naming the line.
    public static func parse(_ text: String, file: String = "capture") throws(CaptureError) -> [CaptureRecord] {
        var out: [CaptureRecord] = []
        var lineNumber = 0
        var previous: UInt64 = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 3 else {
                throw CaptureError(file: file, line: lineNumber,
                                   message: "expected `<nanoseconds> <address> <bytes…>` with at least one byte, found \(fields.count) field(s)")
            }
            guard let ns = UInt64(fields[0]), fields[0].allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw CaptureError(file: file, line: lineNumber, message: "timestamp `\(fields[0])` is not a decimal count of nanoseconds")
            }
            if ns < previous {
                throw CaptureError(file: file, line: lineNumber, message: "timestamp \(ns) goes back in time (previous \(previous))")
            }
            previous = ns
            guard let address = Hex.byte(parsing: fields[1], uppercase: false), address < 0x80 else {
                throw CaptureError(file: file, line: lineNumber, message: "address `\(fields[1])` is not a 7-bit address in two lowercase hex digits")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(fields.count - 2)
            for (k, f) in fields.dropFirst(2).enumerated() {
                guard let b = Hex.byte(parsing: f, uppercase: false) else {
                    throw CaptureError(file: file, line: lineNumber, message: "byte \(k + 1) `\(f)` is not two lowercase hex digits")
                }
                bytes.append(b)
            }
            out.append(CaptureRecord(nanoseconds: ns, address: address, bytes: bytes))
        }
        return out
    }
}

/// A file opened for writing, truncated, closed on deinit. Kept tiny on purpose: the capture is
/// the only file this module writes directly.
final class CaptureFile {
    let path: String
    private let file: FileDescriptor
    /// The first write that failed (disk full, device gone); later lines are not attempted, so
    /// a capture never holds a gap silently: it ends where this error says.
    private(set) var failure: CaptureError?

    init(path: String) throws(CaptureError) {
        self.path = path
        do { file = try FileDescriptor.open(path, [.writeOnly, .create, .truncate], permissions: 0o644) } catch {
            let code = error.errno
            throw CaptureError(file: path, line: 0, message: "cannot open for writing: \(code) (errno \(code.code)); check the directory exists and is writable")
        }
    }

    func append(_ line: String) {
        guard file.raw >= 0, failure == nil else { return }
        do { try file.writeAll(Array((line + "\n").utf8)) } catch {
            let code = error.errno
            failure = CaptureError(file: path, line: 0,
                                   message: "capture stopped: write failed: \(code) (errno \(code.code)); free space or choose another file")
        }
    }

    func close() { file.close() }
}

/// Reads a whole text file (the capture for replay).
func readTextFile(_ path: String) throws(CaptureError) -> String {
    let fd: FileDescriptor
    do { fd = try FileDescriptor.open(path) } catch {
        throw CaptureError(file: path, line: 0, message: "cannot open: \(error.errno) (errno \(error.errno.code))")
    }
    var bytes: [UInt8] = []
    while true {
        let chunk: [UInt8]?
        do { chunk = try fd.readSome(capacity: 65536) } catch {
            throw CaptureError(file: path, line: 0, message: "read failed: \(error) (errno \(error.code))")
        }
        // A blocking descriptor returns nil only if someone made it non-blocking: read on.
        guard let chunk else { continue }
        if chunk.isEmpty { break }
        bytes += chunk
    }
    return String(decoding: bytes, as: UTF8.self)
}
