import IsletFrame
import Synchronization
import IsletTestSupport
import IsletDisplay

/// A bus that keeps every transaction, for byte-exact expectations.
final class RecordingBus: I2CBus, Sendable {
    let capabilities: I2CCapabilities
    private let log = Mutex<[[UInt8]]>([])

    init(_ capabilities: I2CCapabilities = .plainI2C) { self.capabilities = capabilities }

    func write(address: UInt8, bytes: [UInt8]) throws(I2CError) {
        log.withLock { $0.append(bytes) }
    }

    /// Transactions since the last call.
    func take() -> [[UInt8]] { log.withLock { l in defer { l = [] }; return l } }
}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let now = Mutex<UInt64>(0)
    var read: @Sendable () -> UInt64 { { [self] in self.now.withLock { $0 } } }
    func set(_ v: UInt64) { now.withLock { $0 = v } }
    func advance(_ d: UInt64) { now.withLock { $0 += d } }
}

/// What the glass must show for a frame in a rotation (rotations are clockwise).
func expectedGlass(_ frame: Bitmap, rotation: Rotation, panelWidth: Int, panelHeight: Int) -> Bitmap {
    var out = Bitmap(width: panelWidth, height: panelHeight)
    for gy in 0..<panelHeight {
        for gx in 0..<panelWidth {
            let on: Bool
            switch rotation {
            case .deg0: on = frame[gx, gy]
            case .deg180: on = frame[panelWidth - 1 - gx, panelHeight - 1 - gy]
            // Clockwise quarter turn: the frame's left column becomes the glass's top row.
            case .deg90: on = frame[gy, frame.height - 1 - gx]
            case .deg270: on = frame[frame.width - 1 - gy, gx]
            }
            if on { out[gx, gy] = true }
        }
    }
    return out
}

#if canImport(Glibc)
import Glibc
#endif

/// Fills a rectangle of a frame.
func fillRect(_ b: inout Bitmap, x: Int, y: Int, w: Int, h: Int, on: Bool = true) {
    for yy in y..<(y + h) { for xx in x..<(x + w) { b[xx, yy] = on } }
}

func hexBytes(_ s: String) -> [UInt8] {
    s.split(separator: " ").compactMap { UInt8($0, radix: 16) }
}
