import IsletErrno
import CGPIOD
import IsletSystem

/// One edge as the kernel reported it: logical rising (went active) or falling.
public struct GPIORawEdge: Hashable, Sendable {
    public var rising: Bool
    public var timestampNanoseconds: UInt64
    public init(rising: Bool, timestampNanoseconds: UInt64) {
        self.rising = rising
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// A requested input line watching both edges.
public protocol GPIOInputLine: AnyObject {
    /// Readable while edges are pending.
    var fileDescriptor: Int32 { get }
    /// Pending edges; [] when none (never blocks).
    func readEdges() throws(Errno) -> [GPIORawEdge]
}

/// A requested output line.
public protocol GPIOOutputLine: AnyObject {
    /// Drives the line to its active (true) or inactive level.
    func set(active: Bool) throws(Errno)
}

/// The seam between Islet and the C library: the few calls GPIO needs, with raw errnos.
/// `LibgpiodBackend` is the real one; tests pass a fake to exercise every error path.
public protocol GPIOBackend: Sendable {
    /// The chip device paths, sorted ("/dev/gpiochip0", …).
    func chipPaths() throws(Errno) -> [String]
    func describeChip(at path: String) throws(Errno) -> GPIOChipInfo
    /// The group owning a device file, for a permission error ("gpio"); nil if unknown or root.
    func owningGroup(of path: String) -> String?
    func requestInput(chip path: String, offset: UInt32, bias: GPIOBias, activeLow: Bool,
                      consumer: String) throws(Errno) -> any GPIOInputLine
    func requestOutput(chip path: String, offset: UInt32, activeLow: Bool,
                       consumer: String) throws(Errno) -> any GPIOOutputLine
}

extension GPIOBackend {
    /// Every chip described, or the error a person can act on (no chips, permission denied).
    public func describeAllChips() throws(GPIOError) -> [GPIOChipInfo] {
        let paths: [String]
        do { paths = try chipPaths() } catch { throw .system(operation: "listing", path: "/dev", errno: error) }
        guard !paths.isEmpty else { throw .noChips(directory: "/dev") }
        var chips: [GPIOChipInfo] = []
        for p in paths {
            do { chips.append(try describeChip(at: p)) } catch { throw meaning(of: error, opening: p) }
        }
        return chips
    }

    /// Gives an errno from opening or requesting on `path` its meaning for a person.
    public func meaning(of error: Errno, opening path: String, line: String? = nil,
                        chip: GPIOChipInfo? = nil, offset: UInt32? = nil) -> GPIOError {
        switch error {
        case .permissionDenied, .notPermitted:
            return .permissionDenied(path: path, group: owningGroup(of: path) ?? "gpio")
        case .resourceBusy:
            let consumer = chip.flatMap { c in offset.flatMap { Int($0) < c.lines.count ? c.lines[Int($0)].consumer : nil } }
            return .lineBusy(line: line ?? "?", chip: chip?.name ?? path, consumer: consumer ?? "")
        default:
            return .system(operation: line.map { "requesting line \($0) on" } ?? "opening", path: path, errno: error)
        }
    }
}

/// The real backend: libgpiod through the CGPIOD shim, chips found in /dev.
public struct LibgpiodBackend: GPIOBackend {
    public let deviceDirectory: String
    public init(deviceDirectory: String = "/dev") { self.deviceDirectory = deviceDirectory }

    public func chipPaths() throws(Errno) -> [String] {
        let names: [String]
        do { names = try FileSystem.directoryEntries(deviceDirectory).filter { $0.hasPrefix("gpiochip") } }
        catch { throw error.errno }
        // Numeric order: gpiochip10 after gpiochip9.
        return names.sorted { (Int($0.dropFirst(8)) ?? 0, $0) < (Int($1.dropFirst(8)) ?? 0, $1) }
            .map { "\(deviceDirectory)/\($0)" }
    }

    public func describeChip(at path: String) throws(Errno) -> GPIOChipInfo {
        var err: Int32 = 0
        guard let chip = islet_gpio_chip_open(path, &err) else { throw Errno(err) }
        defer { islet_gpio_chip_close(chip) }
        var name = [CChar](repeating: 0, count: 64)
        var label = [CChar](repeating: 0, count: 64)
        islet_gpio_chip_describe(chip, &name, name.count, &label, label.count)
        var lines: [GPIOLineInfo] = []
        let count = islet_gpio_chip_line_count(chip)
        var lineName = [CChar](repeating: 0, count: 64)
        var consumer = [CChar](repeating: 0, count: 64)
        for offset in 0..<count {
            var used: Int32 = 0
            let r = islet_gpio_chip_line_info(chip, offset, &lineName, lineName.count, &consumer, consumer.count, &used)
            guard r == 0 else { throw Errno(-r) }
            lines.append(GPIOLineInfo(name: cText(lineName), consumer: cText(consumer), used: used != 0))
        }
        return GPIOChipInfo(path: path, name: cText(name), label: cText(label), lines: lines)
    }

    public func owningGroup(of path: String) -> String? {
        guard let st = try? FileSystem.status(path), st.group != 0 else { return nil }
        return Identity.groupName(of: st.group)
    }

    public func requestInput(chip path: String, offset: UInt32, bias: GPIOBias, activeLow: Bool,
                             consumer: String) throws(Errno) -> any GPIOInputLine {
        let b: Int32 = switch bias {
        case .asIs: ISLET_GPIO_BIAS_AS_IS
        case .disabled: ISLET_GPIO_BIAS_DISABLE
        case .pullUp: ISLET_GPIO_BIAS_PULL_UP
        case .pullDown: ISLET_GPIO_BIAS_PULL_DOWN
        }
        var err: Int32 = 0
        guard let line = islet_gpio_request_edges(path, offset, consumer, b, activeLow ? 1 : 0, &err) else {
            throw Errno(err)
        }
        return LibgpiodLine(line)
    }

    public func requestOutput(chip path: String, offset: UInt32, activeLow: Bool,
                              consumer: String) throws(Errno) -> any GPIOOutputLine {
        var err: Int32 = 0
        guard let line = islet_gpio_request_output(path, offset, consumer, activeLow ? 1 : 0, 0, &err) else {
            throw Errno(err)
        }
        return LibgpiodLine(line)
    }
}

private func cText(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// A line requested through the shim; released (and its chip closed) on deinit.
final class LibgpiodLine: GPIOInputLine, GPIOOutputLine {
    private let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { islet_gpio_line_release(handle) }

    var fileDescriptor: Int32 { islet_gpio_line_fd(handle) }

    func readEdges() throws(Errno) -> [GPIORawEdge] {
        var edges: [GPIORawEdge] = []
        var rising = [Int32](repeating: 0, count: 16)
        var stamps = [UInt64](repeating: 0, count: 16)
        // Drain what is queued; a full batch means more may wait.
        while true {
            let n = islet_gpio_line_read_edges(handle, &rising, &stamps, Int32(rising.count))
            guard n >= 0 else { throw Errno(-n) }
            for i in 0..<Int(n) { edges.append(GPIORawEdge(rising: rising[i] != 0, timestampNanoseconds: stamps[i])) }
            if Int(n) < rising.count { return edges }
        }
    }

    func set(active: Bool) throws(Errno) {
        let r = islet_gpio_line_set(handle, active ? 1 : 0)
        guard r == 0 else { throw Errno(-r) }
    }
}
