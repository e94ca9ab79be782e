import IsletSystem
import IsletFrame

/// One line of a mock-bus capture (display issue): `<ns since open> <addr hex> <bytes hex …>`.
struct Transaction: Sendable {
    var ns: Int64
    var address: UInt8
    /// The bytes after the address byte: control byte first.
    var bytes: [UInt8]
}

/// A run of transactions with no gap over `gapNs` between them: one flush of the driver.
struct Burst: Sendable {
    var startNs: Int64
    var endNs: Int64
    var bytes: Int
    var transactions: Int
    var carriesPixels: Bool
}

enum Capture {
    /// Parses a capture; comment lines and malformed lines are skipped (the replay tool is the
    /// validator, not the benchmark). Also returns the comments, which may state the origin.
    static func parse(_ text: String) -> (transactions: [Transaction], comments: [String]) {
        var out: [Transaction] = []
        var comments: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") { comments.append(String(line)); continue }
            let f = line.split(separator: " ")
            guard f.count >= 2, let ns = Int64(f[0]), let addr = Hex.byte(parsing: f[1]) else { continue }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(f.count - 2)
            var ok = true
            for h in f.dropFirst(2) {
                guard let b = Hex.byte(parsing: h) else { ok = false; break }
                bytes.append(b)
            }
            if ok { out.append(Transaction(ns: ns, address: addr, bytes: bytes)) }
        }
        return (out, comments)
    }

    /// The first transaction at or after `ns` (capture time), and whether `ns` fell inside a
    /// burst or within its gap after it: then the flush that answers it was run on straight after
    /// another one (a tick's) and is part of that burst, so the burst's start comes before `ns`.
    static func firstTransaction(atOrAfter ns: Int64, in t: [Transaction], gapNs: Int64 = 2_000_000) -> (ns: Int64, merged: Bool)? {
        guard let i = t.firstIndex(where: { $0.ns >= ns }) else { return nil }
        let merged = i > 0 && ns - t[i - 1].ns <= gapNs && t[i].ns - t[i - 1].ns <= gapNs
        return (t[i].ns, merged)
    }

    /// Groups transactions into flushes. The mock bus is instantaneous, so one flush's
    /// transactions sit microseconds apart and two flushes at least a scheduler wake-up apart.
    static func bursts(_ t: [Transaction], gapNs: Int64 = 2_000_000) -> [Burst] {
        var out: [Burst] = []
        for x in t {
            // Control byte 0x40 (Co = 0, D/C# = 1): the rest of the transaction is display data.
            let pixels = x.bytes.first.map { $0 & 0x40 != 0 } ?? false
            if var last = out.last, x.ns - last.endNs <= gapNs {
                last.endNs = x.ns
                last.bytes += x.bytes.count
                last.transactions += 1
                last.carriesPixels = last.carriesPixels || pixels
                out[out.count - 1] = last
            } else {
                out.append(Burst(startNs: x.ns, endNs: x.ns, bytes: x.bytes.count, transactions: 1, carriesPixels: pixels))
            }
        }
        return out
    }

    /// The capture's origin on our monotonic clock when a comment states it
    /// (`monotonic_ns=N`), exact; nil when the capture does not say.
    static func statedOrigin(_ comments: [String]) -> Int64? {
        for c in comments {
            guard let rest = c.after("monotonic_ns=") else { continue }
            let digits = rest.prefix(while: { $0.isNumber })
            if let v = Int64(digits) { return v }
        }
        return nil
    }
}

/// Wire time of I²C traffic: 9 SCL clocks per byte (8 bits and the acknowledge) for every byte
/// after the address, plus per transaction a start condition, the address byte with its
/// acknowledge and a stop condition (1 + 9 + 1 clocks).
enum Wire {
    static func microseconds(bytes: Double, transactions: Double, hz: Double) -> Double {
        (bytes * 9 + transactions * 11) / hz * 1_000_000
    }
}

/// Watches a directory with inotify for the moment a file is created or opened: the origin of a
/// capture whose timestamps count from its opening. Read right after the event wakes us, so it
/// is late by our wake-up latency (microseconds on an idle core; more on a busy one).
struct OpenWatch {
    private let watch: DirectoryWatch
    private let name: String

    init(directory: String, file: String) throws(SystemError) {
        watch = try DirectoryWatch(directory)
        name = file
    }

    /// Waits up to `timeoutMs` for the file to be created or opened; our monotonic time when the
    /// event woke us, or nil.
    func poll(timeoutMs: Int) -> Int64? {
        guard (try? watch.fd.waitReadable(timeoutMs: Int32(timeoutMs))) == true else { return nil }
        let now = Clocks.monotonicNs()
        return watch.names().contains(name) ? now : nil
    }

    func close() { watch.fd.close() }
}

/// A JSON Lines client of the daemon's control socket.
struct SocketClient {
    private let fd: FileDescriptor

    init?(path: String) {
        guard let fd = try? UnixSocket.stream(), (try? fd.connect(unixPath: path)) != nil else { return nil }
        self.fd = fd
    }

    /// Sends one request line.
    func send(_ line: String) -> Bool {
        (try? fd.sendAll(Array((line + "\n").utf8))) != nil
    }

    /// Reads one response line (up to 1 MiB), or nil when the daemon closed or timed out.
    func receiveLine(timeoutMs: Int = 5000) -> String? {
        var out: [UInt8] = []
        let deadline = Clocks.monotonicNs() + Int64(timeoutMs) * 1_000_000
        while out.count < 1 << 20 {
            let left = Int32(max(0, (deadline - Clocks.monotonicNs()) / 1_000_000))
            guard (try? fd.waitReadable(timeoutMs: left)) == true else { return nil }
            guard let got = try? fd.receive(capacity: 1) else { return nil }
            guard let byte = got.first else { return nil }
            if byte == 10 { return String(decoding: out, as: UTF8.self) }
            out.append(byte)
        }
        return nil
    }

    func close() { fd.close() }
}

extension StringProtocol {
    /// The text after the first occurrence of `needle`, or nil (no Foundation here).
    func after(_ needle: String) -> SubSequence? {
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return self[...] }
        var i = startIndex
        while i < endIndex {
            var j = i
            var k = 0
            while k < n.count, j < endIndex, self.utf8[j] == n[k] {
                j = self.utf8.index(after: j)
                k += 1
            }
            if k == n.count { return self[j...] }
            i = index(after: i)
        }
        return nil
    }
}
