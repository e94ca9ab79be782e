import IsletErrno
import IsletInput
import IsletSystem
import CGPIOD
import Synchronization

/// Buttons on GPIO lines through libgpiod: inputs with a bias (pull-up by default, for a button
/// between the GPIO and GND), active-low, both edges with kernel timestamps. Each line's event
/// descriptor is handed to the daemon's loop (`fileDescriptors`), which reads the one that is
/// ready: one epoll for the whole daemon, none of the source's own.
public final class GPIOButtons: Sendable {
    /// One configured button.
    public struct Line: Hashable, Sendable {
        public var button: String
        public var spec: GPIOLineSpec
        public init(button: String, spec: GPIOLineSpec) {
            self.button = button
            self.spec = spec
        }
    }

    public let buttons: [String]
    /// The lines' event descriptors, in configuration order (each line owns its own).
    public let fileDescriptors: [Int32]
    /// The first of `fileDescriptors`: the whole source only for a single button (a loop
    /// watches them all); the daemon's `ButtonSource` offers the same for any source.
    public var fileDescriptor: Int32 { fileDescriptors.first ?? -1 }
    /// The same, as the loop's table takes them (the lines own them).
    public var descriptors: [Descriptor] { fileDescriptors.map(Descriptor.init) }
    /// Where each button was found, e.g. "toggle" → "gpiochip0:17 (GPIO17)", for the log.
    public let resolved: [(button: String, chip: String, offset: UInt32, name: String)]
    private let lines: Mutex<[(button: String, line: any GPIOInputLine)]>

    /// Finds and requests every line; fails with a message naming what exists instead.
    public init(lines wanted: [Line], bias: GPIOBias = .pullUp, activeLow: Bool = true,
                consumer: String = "isletd", backend: any GPIOBackend = LibgpiodBackend()) throws(GPIOError) {
        let chips = try backend.describeAllChips()
        var seen: [String: [String]] = [:]
        var found: [(button: String, chip: GPIOChipInfo, offset: UInt32)] = []
        for w in wanted {
            let (chip, offset) = try w.spec.resolve(in: chips)
            seen["\(chip.name):\(offset)", default: []].append(w.button)
            found.append((w.button, chip, offset))
        }
        if let (line, users) = seen.first(where: { $0.value.count > 1 }) {
            throw .lineUsedTwice(line: line, users: users)
        }
        var requested: [(button: String, line: any GPIOInputLine)] = []
        for f in found {
            let name = f.chip.lines[Int(f.offset)].name
            let label = name.isEmpty ? "\(f.chip.name):\(f.offset)" : name
            let line: any GPIOInputLine
            do {
                line = try backend.requestInput(chip: f.chip.path, offset: f.offset, bias: bias,
                                                activeLow: activeLow, consumer: consumer)
            } catch {
                throw backend.meaning(of: error, opening: f.chip.path, line: label, chip: f.chip, offset: f.offset)
            }
            requested.append((f.button, line))
        }
        self.buttons = wanted.map(\.button)
        self.fileDescriptors = requested.map(\.line.fileDescriptor)
        self.resolved = found.map { ($0.button, $0.chip.name, $0.offset, $0.chip.lines[Int($0.offset)].name) }
        self.lines = Mutex(requested)
    }

    public func readEdges(from descriptor: Int32) throws(GPIOError) -> [ButtonEdge] {
        try readEdges(of: [Descriptor(descriptor)])
    }

    public func readEdges(from descriptor: Descriptor) throws(GPIOError) -> [ButtonEdge] {
        try readEdges(of: [descriptor])
    }

    /// Reads every line (each read returns at once when it has nothing).
    public func readEdges() throws(GPIOError) -> [ButtonEdge] {
        try readEdges(of: Set(descriptors))
    }

    private func readEdges(of fds: Set<Descriptor>) throws(GPIOError) -> [ButtonEdge] {
        let result: Result<[ButtonEdge], GPIOError> = lines.withLock { lines in
            var edges: [ButtonEdge] = []
            for i in lines.indices where fds.contains(Descriptor(lines[i].line.fileDescriptor)) {
                do throws(Errno) {
                    for raw in try lines[i].line.readEdges() {
                        edges.append(ButtonEdge(button: lines[i].button, pressed: raw.rising,
                                                timestampNanoseconds: raw.timestampNanoseconds))
                    }
                } catch {
                    return .failure(.system(operation: "reading edges of button \(lines[i].button) from", path: "GPIO", errno: error))
                }
            }
            return .success(edges)
        }
        // Lines are read one after another: merge them into time order.
        return try result.get().sorted { $0.timestampNanoseconds < $1.timestampNanoseconds }
    }
}

/// An output line (the chime's buzzer or LED), active high or low.
public final class GPIOOutput: Sendable {
    public let lineDescription: String
    private let line: Mutex<any GPIOOutputLine>

    public init(spec: GPIOLineSpec, activeLow: Bool, consumer: String = "isletd",
                backend: any GPIOBackend = LibgpiodBackend()) throws(GPIOError) {
        let chips = try backend.describeAllChips()
        let (chip, offset) = try spec.resolve(in: chips)
        let name = chip.lines[Int(offset)].name
        let label = name.isEmpty ? "\(chip.name):\(offset)" : name
        do {
            let l = try backend.requestOutput(chip: chip.path, offset: offset, activeLow: activeLow, consumer: consumer)
            line = Mutex(l)
        } catch {
            throw backend.meaning(of: error, opening: chip.path, line: label, chip: chip, offset: offset)
        }
        lineDescription = label
    }

    /// Drives the line active (sounding) or inactive.
    public func set(active: Bool) throws(GPIOError) {
        let r: Errno? = line.withLock { l -> Errno? in
            do throws(Errno) { try l.set(active: active) } catch { return error }
            return nil
        }
        if let r { throw .system(operation: "setting chime line \(lineDescription)", path: "", errno: r) }
    }
}
