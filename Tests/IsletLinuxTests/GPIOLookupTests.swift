import IsletErrno
import IsletInput
import IsletSystem
import Testing
import IsletLinux
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The shim's calls sit behind `GPIOBackend`; this fake replaces them so every error path runs
// without /dev/gpiochip*. Chip names and labels are those of a Pi 4 (pinctrl-bcm2711, 58 lines
// named GPIO0…GPIO57) and a Pi 5 (the header on the RP1, pinctrl-rp1).

private func pi4Chip() -> GPIOChipInfo {
    GPIOChipInfo(path: "/dev/gpiochip0", name: "gpiochip0", label: "pinctrl-bcm2711",
                 lines: (0..<58).map { GPIOLineInfo(name: "GPIO\($0)") })
}
private func pi5Chips() -> [GPIOChipInfo] {
    [GPIOChipInfo(path: "/dev/gpiochip0", name: "gpiochip0", label: "gpio-brcmstb@107d508500",
                  lines: (0..<32).map { GPIOLineInfo(name: $0 == 3 ? "RP1_RUN" : "") }),
     GPIOChipInfo(path: "/dev/gpiochip4", name: "gpiochip4", label: "pinctrl-rp1",
                  lines: (0..<54).map { GPIOLineInfo(name: $0 < 28 ? "GPIO\($0)" : "", consumer: $0 == 22 ? "lirc" : "",
                                                     used: $0 == 22) })]
}

/// An input line whose readiness is a pipe: the test queues edges and makes it readable.
private final class GPIOFakeInputLine: GPIOInputLine {
    let fds: (read: Int32, write: Int32)
    var queued: [GPIORawEdge] = []
    let request: (offset: UInt32, bias: GPIOBias, activeLow: Bool)
    init(offset: UInt32, bias: GPIOBias, activeLow: Bool) {
        var p: [Int32] = [0, 0]
        _ = pipe(&p)
        _ = fcntl(p[0], F_SETFL, O_NONBLOCK)
        fds = (p[0], p[1])
        request = (offset, bias, activeLow)
    }
    deinit { close(fds.read); close(fds.write) }
    var fileDescriptor: Int32 { fds.read }
    func push(_ edges: [GPIORawEdge]) {
        queued += edges
        var b: UInt8 = 1
        _ = write(fds.write, &b, 1)
    }
    func readEdges() throws(Errno) -> [GPIORawEdge] {
        var buf = [UInt8](repeating: 0, count: 64)
        while read(fds.read, &buf, buf.count) > 0 {}
        defer { queued = [] }
        return queued
    }
}

private final class GPIOFakeOutputLine: GPIOOutputLine {
    var levels: [Bool] = []
    func set(active: Bool) throws(Errno) { levels.append(active) }
}

private final class GPIOFakeBackend: GPIOBackend, @unchecked Sendable {
    var chips: [GPIOChipInfo]
    var openErrors: [String: Int32] = [:]
    var requestErrors: [UInt32: Int32] = [:]
    var group: String? = "gpio"
    var inputs: [GPIOFakeInputLine] = []
    var outputs: [GPIOFakeOutputLine] = []
    init(_ chips: [GPIOChipInfo]) { self.chips = chips }

    func chipPaths() throws(Errno) -> [String] { chips.map(\.path) }
    func describeChip(at path: String) throws(Errno) -> GPIOChipInfo {
        if let e = openErrors[path] { throw Errno(e) }
        guard let c = chips.first(where: { $0.path == path }) else { throw Errno(ENOENT) }
        return c
    }
    func owningGroup(of path: String) -> String? { group }
    func requestInput(chip path: String, offset: UInt32, bias: GPIOBias, activeLow: Bool,
                      consumer: String) throws(Errno) -> any GPIOInputLine {
        if let e = requestErrors[offset] { throw Errno(e) }
        let l = GPIOFakeInputLine(offset: offset, bias: bias, activeLow: activeLow)
        inputs.append(l)
        return l
    }
    func requestOutput(chip path: String, offset: UInt32, activeLow: Bool,
                       consumer: String) throws(Errno) -> any GPIOOutputLine {
        if let e = requestErrors[offset] { throw Errno(e) }
        let l = GPIOFakeOutputLine()
        outputs.append(l)
        return l
    }
}

private func lines(_ pairs: [(String, String)], chip: String? = nil) throws -> [GPIOButtons.Line] {
    try pairs.map { GPIOButtons.Line(button: $0.0, spec: try GPIOLineSpec.parse($0.1, defaultChip: chip)) }
}

private func gpioError(_ body: () throws -> Void) -> GPIOError? {
    do { try body(); return nil } catch let e as GPIOError { return e } catch { return nil }
}

@Suite struct GPIOLookupTests {
    @Test func specsParse() throws {
        #expect(try GPIOLineSpec.parse("GPIO17") == .named("GPIO17", chip: nil))
        #expect(try GPIOLineSpec.parse(" GPIO17 ", defaultChip: "pinctrl-rp1") == .named("GPIO17", chip: "pinctrl-rp1"))
        #expect(try GPIOLineSpec.parse("17", defaultChip: "gpiochip4") == .offset(17, chip: "gpiochip4"))
        #expect(try GPIOLineSpec.parse("gpiochip0:17") == .offset(17, chip: "gpiochip0"))
        #expect(try GPIOLineSpec.parse("/dev/gpiochip4:GPIO17") == .named("GPIO17", chip: "/dev/gpiochip4"))
        for bad in ["", "17", ":17", "gpiochip0:", "GPIO 17", "gpiochip0:99999999999"] {
            #expect(throws: GPIOError.self, "\(bad)") { try GPIOLineSpec.parse(bad) }
        }
    }

    @Test func theSameNameFindsTheLineOnAPi4AndAPi5() throws {
        let spec = try GPIOLineSpec.parse("GPIO17")
        let pi4 = try spec.resolve(in: [pi4Chip()])
        #expect(pi4.chip.name == "gpiochip0" && pi4.offset == 17)
        let pi5 = try spec.resolve(in: pi5Chips())
        #expect(pi5.chip.label == "pinctrl-rp1" && pi5.offset == 17)
    }

    @Test func aChipIsFoundByPathNameLabelOrNumber() throws {
        for chip in ["/dev/gpiochip4", "gpiochip4", "pinctrl-rp1", "4"] {
            let r = try GPIOLineSpec.parse("5", defaultChip: chip).resolve(in: pi5Chips())
            #expect(r.chip.path == "/dev/gpiochip4", "\(chip)")
        }
    }

    @Test func aMissingChipListsTheChips() throws {
        let e = gpioError { _ = try GPIOLineSpec.parse("GPIO17", defaultChip: "pinctrl-bcm2711").resolve(in: pi5Chips()) }
        guard case .chipNotFound(let chip, let available)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(chip == "pinctrl-bcm2711")
        #expect(available.map(\.name) == ["gpiochip0", "gpiochip4"])
        let text = e?.description ?? ""
        #expect(text.contains("/dev/gpiochip0") && text.contains("/dev/gpiochip4") && text.contains("pinctrl-rp1"))
    }

    @Test func aMissingLineListsTheLineNamesThatExist() throws {
        let e = gpioError { _ = try GPIOLineSpec.parse("GPIO99").resolve(in: pi5Chips()) }
        guard case .lineNotFound(let line, let searched)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(line == "GPIO99")
        #expect(searched.count == 2)
        let text = e?.description ?? ""
        #expect(text.contains("RP1_RUN"))
        #expect(text.contains("GPIO0 ") && text.contains("GPIO27"))
        #expect(!text.contains("GPIO28"))
    }

    @Test func aMissingLineOnANamedChipSearchesOnlyThatChip() {
        let e = gpioError { _ = try GPIOLineSpec.parse("gpiochip0:GPIO17").resolve(in: pi5Chips()) }
        guard case .lineNotFound(_, let searched)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(searched.map(\.name) == ["gpiochip0"])
    }

    @Test func anOffsetPastTheEndSaysTheRange() {
        let e = gpioError { _ = try GPIOLineSpec.parse("gpiochip0:58").resolve(in: [pi4Chip()]) }
        #expect(e?.description.contains("0…57") == true)
    }

    @Test func noChipsAtAllSaysSo() {
        let e = gpioError { _ = try GPIOButtons(lines: lines([("toggle", "GPIO17")]), backend: GPIOFakeBackend([])) }
        #expect(e == .noChips(directory: "/dev"))
    }

    @Test func permissionDeniedNamesTheGroupOwningTheDevice() throws {
        let backend = GPIOFakeBackend([pi4Chip()])
        backend.openErrors["/dev/gpiochip0"] = EACCES
        backend.group = "plugdev"
        let e = gpioError { _ = try GPIOButtons(lines: lines([("toggle", "GPIO17")]), backend: backend) }
        #expect(e == .permissionDenied(path: "/dev/gpiochip0", group: "plugdev"))
        #expect(e?.description.contains("usermod -aG plugdev") == true)
    }

    @Test func permissionDeniedOnARootOwnedDeviceNamesTheGPIOGroup() throws {
        let backend = GPIOFakeBackend([pi4Chip()])
        backend.requestErrors[17] = EPERM
        backend.group = nil
        let e = gpioError { _ = try GPIOButtons(lines: lines([("toggle", "GPIO17")]), backend: backend) }
        #expect(e == .permissionDenied(path: "/dev/gpiochip0", group: "gpio"))
    }

    @Test func aBusyLineNamesItsConsumer() throws {
        let backend = GPIOFakeBackend(pi5Chips())
        backend.requestErrors[22] = EBUSY
        let e = gpioError { _ = try GPIOButtons(lines: lines([("expand", "GPIO22")]), backend: backend) }
        #expect(e == .lineBusy(line: "GPIO22", chip: "gpiochip4", consumer: "lirc"))
    }

    @Test func otherErrnosKeepTheirText() throws {
        let backend = GPIOFakeBackend([pi4Chip()])
        backend.requestErrors[17] = EIO
        let e = gpioError { _ = try GPIOButtons(lines: lines([("toggle", "GPIO17")]), backend: backend) }
        #expect(e?.description.contains("/dev/gpiochip0") == true)
        #expect(e?.description.contains(String(cString: strerror(EIO))) == true)
    }

    @Test func twoButtonsOnOneLineAreRejected() throws {
        let e = gpioError {
            _ = try GPIOButtons(lines: lines([("toggle", "GPIO17"), ("reset", "gpiochip0:17")]), backend: GPIOFakeBackend([pi4Chip()]))
        }
        guard case .lineUsedTwice(_, let users)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(users.sorted() == ["reset", "toggle"])
    }

    @Test func buttonsAreRequestedWithPullUpActiveLowAndHandEachLineToTheLoop() throws {
        let backend = GPIOFakeBackend(pi5Chips())
        let buttons = try GPIOButtons(lines: lines([("toggle", "GPIO17"), ("reset", "GPIO27")]), backend: backend)
        #expect(buttons.buttons == ["toggle", "reset"])
        #expect(backend.inputs.map(\.request.offset) == [17, 27])
        #expect(backend.inputs.allSatisfy { $0.request.bias == .pullUp && $0.request.activeLow })
        #expect(buttons.resolved.map(\.chip) == ["gpiochip4", "gpiochip4"])

        // No epoll of its own: the loop watches each line's descriptor.
        #expect(buttons.fileDescriptors == backend.inputs.map(\.fileDescriptor))
        var p = buttons.fileDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        #expect(poll(&p, nfds_t(p.count), 0) == 0)
        #expect(try buttons.readEdges() == [])
        // Edges on two lines: both descriptors wake; the one read gives its own line's edges.
        backend.inputs[1].push([GPIORawEdge(rising: true, timestampNanoseconds: 200)])
        backend.inputs[0].push([GPIORawEdge(rising: true, timestampNanoseconds: 100),
                                GPIORawEdge(rising: false, timestampNanoseconds: 300)])
        #expect(poll(&p, nfds_t(p.count), 1_000) == 2)
        #expect(try buttons.readEdges(from: buttons.fileDescriptors[1]) == [
            ButtonEdge(button: "reset", pressed: true, timestampNanoseconds: 200),
        ])
        #expect(try buttons.readEdges(from: buttons.fileDescriptors[0]).map(\.timestampNanoseconds) == [100, 300])
        #expect(poll(&p, nfds_t(p.count), 0) == 0)
        // Read all at once, lines come back merged in time order.
        backend.inputs[1].push([GPIORawEdge(rising: false, timestampNanoseconds: 500)])
        backend.inputs[0].push([GPIORawEdge(rising: true, timestampNanoseconds: 400),
                                GPIORawEdge(rising: false, timestampNanoseconds: 600)])
        #expect(try buttons.readEdges() == [
            ButtonEdge(button: "toggle", pressed: true, timestampNanoseconds: 400),
            ButtonEdge(button: "reset", pressed: false, timestampNanoseconds: 500),
            ButtonEdge(button: "toggle", pressed: false, timestampNanoseconds: 600),
        ])
        #expect(poll(&p, nfds_t(p.count), 0) == 0)
    }

    @Test func outputsDriveTheirLineAndReportLookupErrors() throws {
        let backend = GPIOFakeBackend([pi4Chip()])
        let out = try GPIOOutput(spec: try GPIOLineSpec.parse("GPIO18"), activeLow: false, backend: backend)
        try out.set(active: true)
        try out.set(active: false)
        #expect(backend.outputs.first?.levels == [true, false])
        let e = gpioError { _ = try GPIOOutput(spec: try GPIOLineSpec.parse("BUZZER"), activeLow: false, backend: backend) }
        guard case .lineNotFound(let name, _)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(name == "BUZZER")
    }
}
