import FoundationEssentials
import IsletProtocol

/// A part's slice of the state file, under its own key beside the activities (the sync
/// group's ledger under `sync`): the part saves and restores it, the store names no part.
/// A slice that does not decode makes the file unusable, as any other bad field does: it is
/// moved aside and reported, never trusted.
public protocol SavedSlice: Codable, Sendable {
    static var key: String { get }
    /// The lowest schema of the state file that holds it (1 while an earlier version could read it).
    var schema: Int { get }
}

/// One slice type's value in a state file's bytes (nil when the file has none).
struct OneSlice<T: SavedSlice>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: AnyCodingKey.self).decodeIfPresent(T.self, forKey: AnyCodingKey(T.key))
    }

    static func decode(_ bytes: [UInt8]) throws -> (any SavedSlice)? {
        try JSONDecoder().decode(Self.self, from: Data(bytes)).value
    }
}

extension FileStore {
    /// The slices of the given types that the file holds, by key.
    static func slices(_ bytes: [UInt8], of types: [any SavedSlice.Type]) throws -> [String: any SavedSlice] {
        var out: [String: any SavedSlice] = [:]
        for t in types {
            func one<T: SavedSlice>(_ t: T.Type) throws -> (any SavedSlice)? { try OneSlice<T>.decode(bytes) }
            if let v = try one(t) { out[t.key] = v }
        }
        return out
    }
}
