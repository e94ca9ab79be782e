import FoundationEssentials
import IsletCore

/// What crosses the broker, parsed with every check before use: the one place a group
/// message's bytes become values (the daemon's sync part and the fuzz targets both call it).
public enum SyncWire {
    /// A payload larger than this is no record of ours (an activity's is under 2 KiB).
    public static let maximumRecordBytes = 16 * 1024
    /// A clock beacon is `{"device": …, "wall_ms": …}`: a few dozen bytes.
    public static let maximumBeaconBytes = 256

    /// The record on a timer's state topic, or why not.
    public static func record(_ payload: [UInt8], topicTimer: String) -> Result<SyncRecord, SyncWireError> {
        guard payload.count <= maximumRecordBytes else {
            return .failure(SyncWireError("a message of \(payload.count) bytes is larger than any record (\(maximumRecordBytes))"))
        }
        let record: SyncRecord
        do { record = try JSONDecoder().decode(SyncRecord.self, from: Data(payload)) }
        catch { return .failure(SyncWireError("it does not decode: \(describe(error))")) }
        guard record.timerID == topicTimer else {
            return .failure(SyncWireError("it is for timer \"\(TextRule.excerpt(record.timerID, bytes: 80))\", not the topic's"))
        }
        if let why = record.problem { return .failure(SyncWireError(why)) }
        return .success(record)
    }

    /// A device's clock reading, sent every 30 s (docs/SYNC.md).
    public struct Beacon: Codable, Hashable, Sendable {
        public var device: String
        public var wallMs: Int64
        public init(device: String, wallMs: Int64) { self.device = device; self.wallMs = wallMs }
        enum CodingKeys: String, CodingKey { case device, wallMs = "wall_ms" }
    }

    /// The beacon on `peer`'s clock topic, or why not.
    public static func beacon(_ payload: [UInt8], peer: String) -> Result<Beacon, SyncWireError> {
        let shape = "it is not {\"device\": \"\(peer.prefix(64))\", \"wall_ms\": N} in at most \(maximumBeaconBytes) bytes, N a time from 1970 to 9999"
        guard payload.count <= maximumBeaconBytes, isDeviceName(peer),
              let b = try? JSONDecoder().decode(Beacon.self, from: Data(payload)), b.device == peer,
              (0...Revision.maximumWallMilliseconds).contains(b.wallMs) else { return .failure(SyncWireError(shape)) }
        return .success(b)
    }

    /// A device name as a topic level allows it: 1 to 64 of A-Z a-z 0-9 - _ .
    public static func isDeviceName(_ s: String) -> Bool {
        (1...64).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
        }
    }

    /// A decoding error in a few words (never the whole payload).
    public static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return what(c)
        case DecodingError.keyNotFound(let k, let c): return "\"\(k.stringValue)\" is missing" + at(c)
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c): return what(c)
        default: return "\(error)".prefix(200).description
        }
    }

    private static func what(_ c: DecodingError.Context) -> String { String(c.debugDescription.prefix(160)) + at(c) }
    private static func at(_ c: DecodingError.Context) -> String {
        c.codingPath.isEmpty ? "" : " at " + c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").prefix(80)
    }
}

public struct SyncWireError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
