#if canImport(Glibc)
import Glibc
#endif
import IsletRender

/// A panel failure: which device and what the bus said.
public struct PanelError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The seam to the display driver: bring the panel up, show a frame (only changed bytes go
/// out), switch the display on or off. Each call returns the bytes it put on the bus.
public protocol PanelOutput: AnyObject {
    var name: String { get }
    func initialize() throws(PanelError) -> Int
    func show(_ frame: Bitmap) throws(PanelError) -> Int
    func setDisplay(on: Bool) throws(PanelError) -> Int
    /// What an observer would see on the glass (emulated panels only).
    var visibleImage: PanelImage? { get }
}

/// The emulated panel on the mock bus: it keeps the image the bytes produced and counts them.
/// A fault window makes the bus fail like an unplugged panel; power comes back blank.
public final class MockPanel: PanelOutput {
    public let name = "mock"
    private var ram: Bitmap
    private var on = false
    private var initialized = false
    private let unplugged: (Int64) -> Bool
    private let monotonicMs: () -> Int64

    public init(width: Int, height: Int, unplugged: @escaping (Int64) -> Bool = { _ in false },
                monotonicMs: (() -> Int64)? = nil) {
        ram = Bitmap(width: width, height: height)
        self.unplugged = unplugged
        self.monotonicMs = monotonicMs ?? { Posix.bootMilliseconds() }
    }

    private func check() throws(PanelError) {
        if unplugged(monotonicMs()) {
            // Losing power loses the panel's RAM and its settings.
            initialized = false
            on = false
            ram.clear()
            throw PanelError("mock bus: no ACK from the panel at 0x3c (unplugged)")
        }
    }

    public func initialize() throws(PanelError) -> Int {
        try check()
        initialized = true
        on = false
        ram.clear()
        return 26 + 1 + ram.bytes.count   // init sequence, then the cleared RAM
    }

    public func show(_ frame: Bitmap) throws(PanelError) -> Int {
        try check()
        guard initialized else { throw PanelError("mock bus: panel not initialized") }
        var bytes = 0
        for page in 0..<ram.pageCount {
            var lo = -1, hi = -1
            for x in 0..<ram.width where ram.byte(page: page, column: x) != frame.byte(page: page, column: x) {
                if lo < 0 { lo = x }
                hi = x
            }
            guard lo >= 0 else { continue }
            for x in lo...hi { ram.setByte(page: page, column: x, frame.byte(page: page, column: x)) }
            bytes += 7 + 1 + (hi - lo + 1)   // window commands, data control byte, the changed span
        }
        return bytes
    }

    public func setDisplay(on newValue: Bool) throws(PanelError) -> Int {
        try check()
        guard on != newValue else { return 0 }
        on = newValue
        return 2
    }

    public var visibleImage: PanelImage? {
        PanelImage(width: ram.width, height: ram.height, on: on && initialized, bytes: ram.bytes)
    }
}

/// A Linux I²C bus device. Until the driver is wired in, it only checks that the device opens,
/// so a missing bus is reported with its errno text and retried like an absent panel.
public final class DevicePanel: PanelOutput {
    public let name: String
    public init(path: String) { name = path }

    public func initialize() throws(PanelError) -> Int {
        let fd = open(name, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw PanelError("\(name): \(Errno.current); check the bus number and that this user is in the i2c group") }
        close(fd)
        throw PanelError("\(name): this build has no panel driver yet")
    }

    public func show(_ frame: Bitmap) throws(PanelError) -> Int { throw PanelError("\(name): not initialized") }
    public func setDisplay(on: Bool) throws(PanelError) -> Int { throw PanelError("\(name): not initialized") }
    public var visibleImage: PanelImage? { nil }
}
