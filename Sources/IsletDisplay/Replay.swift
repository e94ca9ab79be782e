import IsletFrame

/// Feeding a capture into an emulated panel.
public struct ReplayResult: Sendable {
    public var panel: EmulatedPanel
    public var transactions: Int
    /// Bytes after the address bytes.
    public var bytes: Int
    /// From the first to the last record.
    public var durationNanoseconds: UInt64

    public var image: Bitmap { panel.image }
    public var problems: [PanelProblem] { panel.problems }

    /// Rates over the capture's span; nil when it has fewer than two distinct timestamps.
    public var bytesPerSecond: Double? {
        durationNanoseconds == 0 ? nil : Double(bytes) * 1e9 / Double(durationNanoseconds)
    }
    public var transactionsPerSecond: Double? {
        durationNanoseconds == 0 ? nil : Double(transactions) * 1e9 / Double(durationNanoseconds)
    }
}

public enum Replay {
    /// Replays records into a freshly powered panel. Records to other addresses than `address`
    /// are skipped; nil takes the address of the first record.
    public static func run(_ records: [CaptureRecord], model: PanelModel, address: UInt8? = nil) -> ReplayResult {
        var panel = EmulatedPanel(model: model)
        let target = address ?? records.first?.address
        var n = 0, bytes = 0
        for r in records where r.address == target {
            panel.receive(r.bytes)
            n += 1
            bytes += r.bytes.count
        }
        let span = (records.last?.nanoseconds ?? 0) &- (records.first?.nanoseconds ?? 0)
        return ReplayResult(panel: panel, transactions: n, bytes: bytes, durationNanoseconds: span)
    }

    /// Reads and replays a capture file.
    public static func run(file: String, model: PanelModel) throws(CaptureError) -> ReplayResult {
        let text = try readTextFile(file)
        return run(try CaptureFormat.parse(text, file: file), model: model)
    }
}
