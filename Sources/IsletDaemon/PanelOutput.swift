import IsletParts
import IsletProtocol
import IsletSystem
import IsletFrame
import IsletDisplay
import IsletLinux
import IsletRender

/// A panel failure: which device and what the bus said.
public struct PanelError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The seam to the display driver: bring the panel up, show a frame (only changed bytes go
/// out), switch the display on or off. Each call returns the bytes it put on the wire.
public protocol PanelOutput: AnyObject {
    var name: String { get }
    func initialize() throws(PanelError) -> Int
    func show(_ frame: Bitmap) throws(PanelError) -> Int
    func setDisplay(on: Bool) throws(PanelError) -> Int
    /// 81h; a panel brought up later (or again, after a bus error) comes up with it.
    func setContrast(_ value: UInt8) throws(PanelError) -> Int
    /// Whether the display is on: the driver's knowledge, kept in one place.
    var displayIsOn: Bool { get }
    /// What an observer would see on the glass (emulated panels only).
    var visibleImage: PanelImage? { get }
    /// What the glass shows, also on real glass (the frame last sent there).
    var shownImage: PanelImage? { get }
}

/// IsletDisplay's driver on a bus: the emulated panel of the mock bus, or /dev/i2c-N.
/// A Linux bus that cannot be opened yet (absent adapter, permissions) is retried by
/// `initialize`, like a panel that does not answer.
public final class DriverPanel: PanelOutput {
    public let name: String
    private let model: PanelModel
    private let address: UInt8
    private var settings: DisplaySettings
    private let openBus: () throws(I2CError) -> any I2CBus
    private var driver: PanelDriver?
    /// The frame the driver last sent whole to real glass (its shadow, as a frame): what the
    /// page shows when there is no emulated panel to read back.
    private var sent: Bitmap?
    /// The mock bus, for reading back what its emulated panel shows.
    public let mock: MockI2CBus?

    /// The emulated panel on a mock bus; `unplug` makes the bus fail for a window (ns from now).
    public init(mockModel model: PanelModel, address: UInt8, rotation: Rotation = .deg0, contrast: UInt8? = nil,
                capture: String?, unplug: (startMs: Int64, lengthMs: Int64)?) throws(PanelError) {
        let bus = MockI2CBus(panel: model, address: address)
        if let capture {
            do { try bus.startCapture(to: capture) } catch { throw PanelError("cannot write the capture: \(error)") }
        }
        if let u = unplug {
            let now = MockI2CBus.monotonicNanoseconds()
            bus.failAll(from: now + UInt64(u.startMs) * 1_000_000, until: now + UInt64(u.startMs + u.lengthMs) * 1_000_000)
        }
        self.model = model
        self.address = address
        self.settings = DisplaySettings(rotation: rotation, contrast: contrast)
        self.name = "mock"
        self.mock = bus
        self.openBus = { () throws(I2CError) -> any I2CBus in bus }
    }

    public init(device: String, model: PanelModel, address: UInt8, rotation: Rotation = .deg0, contrast: UInt8? = nil,
                transport: I2CTransport? = nil) {
        self.model = model
        self.address = address
        self.settings = DisplaySettings(rotation: rotation, contrast: contrast)
        self.name = device
        self.mock = nil
        self.openBus = { () throws(I2CError) -> any I2CBus in try LinuxI2CBus(devicePath: device, preferred: transport) }
    }

    public func initialize() throws(PanelError) -> Int {
        if driver == nil {
            do { driver = PanelDriver(bus: try openBus(), address: address, panel: model, settings: settings) }
            catch { throw PanelError("\(error)") }
        }
        do { return try driver?.initialize().wireBytes ?? 0 }
        catch { throw PanelError("\(error)") }
    }

    public func show(_ frame: Bitmap) throws(PanelError) -> Int {
        guard driver != nil else { throw PanelError("\(name): not initialized") }
        do {
            let bytes = try driver?.flush(frame).wireBytes ?? 0
            sent = frame
            return bytes
        } catch {
            sent = nil
            throw PanelError("\(error)")
        }
    }

    public func setDisplay(on: Bool) throws(PanelError) -> Int {
        guard driver != nil else { throw PanelError("\(name): not initialized") }
        do { return try driver?.setDisplayOn(on).wireBytes ?? 0 }
        catch { throw PanelError("\(error)") }
    }

    public func setContrast(_ value: UInt8) throws(PanelError) -> Int {
        settings.contrast = value
        // The driver keeps the value even when the write fails: its next init sends it.
        do { return try driver?.setContrast(value).wireBytes ?? 0 }
        catch { throw PanelError("\(error)") }
    }

    public var displayIsOn: Bool { driver?.isDisplayOn ?? false }

    /// The transport the bus chose once it opened (plain I²C where the adapter offers it).
    public var transport: I2CTransport? { driver?.bus.capabilities.transport }

    /// What the glass shows: the emulated panel's RAM, or on real glass the frame last sent.
    public var shownImage: PanelImage? {
        if mock != nil { return visibleImage }
        return sent.map { PanelImage(width: $0.width, height: $0.height, on: displayIsOn, bytes: $0.bytes) }
    }

    public var visibleImage: PanelImage? {
        guard let mock else { return nil }
        let image = mock.image(at: address)
        return PanelImage(width: image.width, height: image.height, on: mock.panel(at: address)?.displayOn ?? false,
                          bytes: image.bytes)
    }

    public func stopCapture() { mock?.stopCapture() }
}
