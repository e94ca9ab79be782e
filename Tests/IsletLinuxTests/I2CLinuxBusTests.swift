import IsletErrno
import IsletDisplay
import IsletFrame
import Testing
import Synchronization
import IsletLinux
import IsletSystem
#if canImport(Glibc)
import Glibc
#endif

/// Replaces the C calls under LinuxI2CBus: records what would reach the kernel, fails on demand,
/// and can feed successful writes into an emulated panel.
final class FakeI2CSystem: I2CSystem, Sendable {
    enum Call: Equatable {
        case open(String), close(Int32), funcs, slave(UInt8), plain(UInt8, [UInt8]), smbus(UInt8, [UInt8])
    }
    struct State {
        var calls: [Call] = []
        var openErrno: Int32? = nil
        var funcsErrno: Int32? = nil
        var funcs: UInt = 0
        var writeErrno: [UInt8: Int32] = [:]
        /// errno of I2C_SLAVE per address (EBUSY: a kernel driver claimed it).
        var slaveErrno: [UInt8: Int32] = [:]
        var panel: EmulatedPanel? = nil
        /// What presentBuses answers (the machine's /dev/i2c-N nodes and adapter names).
        var buses: [String] = []
    }
    let state: Mutex<State>

    init(funcs: UInt, panel: PanelModel? = nil) {
        var s = State()
        s.funcs = funcs
        s.panel = panel.map { EmulatedPanel(model: $0) }
        state = Mutex(s)
    }

    var calls: [Call] { state.withLock { $0.calls } }

    func open(_ path: String) -> Result<Descriptor, Errno> {
        state.withLock { s in
            s.calls.append(.open(path))
            if let e = s.openErrno { return .failure(Errno(e)) }
            return .success(Descriptor(7))
        }
    }
    func close(_ fd: Descriptor) { state.withLock { $0.calls.append(.close(fd.raw)) } }
    func functionality(_ fd: Descriptor) -> Result<UInt, Errno> {
        state.withLock { s in
            s.calls.append(.funcs)
            if let e = s.funcsErrno { return .failure(Errno(e)) }
            return .success(s.funcs)
        }
    }
    func setSlaveAddress(_ fd: Descriptor, _ address: UInt8) -> Result<Void, Errno> {
        state.withLock { s in
            s.calls.append(.slave(address))
            if let e = s.slaveErrno[address] { return .failure(Errno(e)) }
            return .success(())
        }
    }
    func plainWrite(_ fd: Descriptor, address: UInt8, bytes: [UInt8]) -> Result<Void, Errno> {
        state.withLock { s in
            s.calls.append(.plain(address, bytes))
            if let e = s.writeErrno[address] { return .failure(Errno(e)) }
            s.panel?.receive(bytes)
            return .success(())
        }
    }
    func presentBuses() -> [String] { state.withLock { $0.buses } }
    func smbusBlockWrite(_ fd: Descriptor, command: UInt8, bytes: [UInt8]) -> Result<Void, Errno> {
        state.withLock { s in
            s.calls.append(.smbus(command, bytes))
            let slave = s.calls.reversed().compactMap { c -> UInt8? in if case .slave(let a) = c { return a }; return nil }.first ?? 0
            if let e = s.writeErrno[slave] { return .failure(Errno(e)) }
            // The kernel refuses more than I2C_SMBUS_BLOCK_MAX bytes.
            if bytes.count > 32 { return .failure(Errno(EINVAL)) }
            s.panel?.receive([command] + bytes)
            return .success(())
        }
    }
}

@Suite struct LinuxI2CBusTests {
    @Test func plainAdapterUsesI2CRDWR() throws {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.plainI2C | I2CFunctionality.smbusWriteI2CBlock)
        let bus = try LinuxI2CBus(bus: 1, system: sys)
        #expect(bus.capabilities == .plainI2C)
        try bus.write(address: 0x3C, bytes: [0x00, 0xAE])
        try bus.write(address: 0x3C, bytes: [0x00, 0xAF])
        // I2C_SLAVE once per address (the kernel's claim check), then one I2C_RDWR message per write.
        #expect(sys.calls == [.open("/dev/i2c-1"), .funcs, .slave(0x3C), .plain(0x3C, [0x00, 0xAE]), .plain(0x3C, [0x00, 0xAF])])
    }

    @Test func smbusOnlyAdapterSendsTheControlByteAsCommand() throws {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.smbusWriteI2CBlock)
        let bus = try LinuxI2CBus(devicePath: "/dev/i2c-3", system: sys)
        #expect(bus.capabilities == .smbusBlock)
        try bus.write(address: 0x3C, bytes: [0x40, 0x01, 0x02])
        try bus.write(address: 0x3C, bytes: [0x00, 0xAF])
        // I2C_SLAVE once per address change, then i2c_smbus_write_i2c_block_data(command = control byte).
        #expect(sys.calls == [.open("/dev/i2c-3"), .funcs, .slave(0x3C), .smbus(0x40, [0x01, 0x02]), .smbus(0x00, [0xAF])])
        #expect(throws: I2CError.self) { try bus.write(address: 0x3C, bytes: [0x40] + [UInt8](repeating: 0, count: 33)) }
    }

    @Test func forcedSMBusOnAPlainAdapter() throws {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.plainI2C | I2CFunctionality.smbusWriteI2CBlock)
        let bus = try LinuxI2CBus(devicePath: "/dev/i2c-1", preferred: .smbusBlock, system: sys)
        #expect(bus.capabilities.transport == .smbusBlock)
    }

    @Test func adapterWithNeitherIsRefused() {
        let sys = FakeI2CSystem(funcs: 0)
        #expect { _ = try LinuxI2CBus(devicePath: "/dev/i2c-9", system: sys) } throws: { e in
            (e as? I2CError)?.kind == .unsupported
        }
        #expect(sys.calls.last == .close(7))
    }

    @Test(arguments: [(ENOENT, I2CError.Kind.noSuchBus, "dtparam=i2c_arm=on"),
                      (EACCES, .permissionDenied, "`i2c` group")])
    func openErrors(_ code: Int32, _ kind: I2CError.Kind, _ hint: String) {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.plainI2C)
        sys.state.withLock { $0.openErrno = code }
        do {
            _ = try LinuxI2CBus(bus: 1, system: sys)
            Issue.record("expected \(kind)")
        } catch {
            #expect(error.kind == kind && error.device == "/dev/i2c-1" && error.errno == Errno(code))
            #expect(error.hint.contains(hint))
            #expect(error.errno == Errno(code) && error.description.contains(String(cString: strerror(code))))
        }
    }

    /// A bus number that does not exist on a machine that has others: the error names them, each
    /// with its adapter, so the config can be put right without i2cdetect.
    @Test func aWrongBusNamesTheBusesThatExist() {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.plainI2C)
        sys.state.withLock {
            $0.openErrno = ENOENT
            $0.buses = ["/dev/i2c-1 (bcm2835 (i2c@7e804000))", "/dev/i2c-2 (bcm2835 (i2c@7e805000))"]
        }
        #expect { _ = try LinuxI2CBus(bus: 7, system: sys) } throws: { e in
            guard let e = e as? I2CError else { return false }
            return e.kind == .noSuchBus && e.device == "/dev/i2c-7"
                && e.description.contains("/dev/i2c-1 (bcm2835 (i2c@7e804000)), /dev/i2c-2 (bcm2835 (i2c@7e805000))")
                && e.description.contains("[display] bus") && !e.hint.contains("dtparam")
        }
    }

    @Test(arguments: [(ENXIO, I2CError.Kind.noAcknowledge, "wiring"), (EREMOTEIO, .noAcknowledge, "wiring"),
                      (EBUSY, .busy, "overlay"), (ETIMEDOUT, .transfer, "cable")])
    func transferErrors(_ code: Int32, _ kind: I2CError.Kind, _ hint: String) throws {
        for funcs in [I2CFunctionality.plainI2C, I2CFunctionality.smbusWriteI2CBlock] {
            let sys = FakeI2CSystem(funcs: funcs)
            sys.state.withLock { $0.writeErrno[0x3D] = code }
            let bus = try LinuxI2CBus(bus: 1, system: sys)
            do {
                try bus.write(address: 0x3D, bytes: [0x00, 0xAE])
                Issue.record("expected \(kind)")
            } catch {
                #expect(error.kind == kind && error.address == 0x3D && error.errno == Errno(code))
                #expect(error.hint.contains(hint))
                #expect(error.description.contains("/dev/i2c-1") && error.description.contains("0x3d"))
            }
        }
    }

    /// The kernel refuses I2C_SLAVE with EBUSY when a driver (the ssd1306 overlay) has claimed the
    /// address; I2C_RDWR alone would not notice. Both transports must report it, with the hint.
    @Test(arguments: [I2CFunctionality.plainI2C, I2CFunctionality.smbusWriteI2CBlock])
    func anAddressClaimedByAKernelDriverIsBusy(_ funcs: UInt) throws {
        let sys = FakeI2CSystem(funcs: funcs)
        sys.state.withLock { $0.slaveErrno[0x3C] = EBUSY }
        let bus = try LinuxI2CBus(bus: 1, system: sys)
        do {
            try bus.write(address: 0x3C, bytes: [0x00, 0xAE])
            Issue.record("expected busy")
        } catch {
            #expect(error.kind == .busy && error.address == 0x3C && error.errno == Errno(EBUSY))
            #expect(error.hint.contains("dtoverlay=ssd1306"))
        }
        // Nothing reached the panel's address.
        #expect(!sys.calls.contains { if case .plain = $0 { true } else if case .smbus = $0 { true } else { false } })
        // Once the driver lets go, the next write selects the address again and goes through.
        sys.state.withLock { $0.slaveErrno = [:] }
        try bus.write(address: 0x3C, bytes: [0x00, 0xAE])
        #expect(sys.calls.suffix(2).first == .slave(0x3C))
    }

    @Test func probeTries3CThen3D() throws {
        let sys = FakeI2CSystem(funcs: I2CFunctionality.plainI2C)
        sys.state.withLock { $0.writeErrno[0x3C] = EREMOTEIO }
        let bus = try LinuxI2CBus(bus: 1, system: sys)
        #expect(try bus.probe() == 0x3D)
        // The probe sends a NOP command (E3h, SSD1306 §10.1.20).
        #expect(sys.calls.suffix(4) == [.slave(0x3C), .plain(0x3C, [0x00, 0xE3]), .slave(0x3D), .plain(0x3D, [0x00, 0xE3])])
        sys.state.withLock { $0.writeErrno[0x3D] = ENXIO }
        #expect(try bus.probe() == nil)
        sys.state.withLock { $0.writeErrno[0x3C] = EBUSY }
        #expect(throws: I2CError.self) { _ = try bus.probe() }
    }

    @Test(arguments: [I2CFunctionality.plainI2C, I2CFunctionality.smbusWriteI2CBlock])
    func driverThroughTheSeamReachesThePanel(_ funcs: UInt) throws {
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 64))
        let sys = FakeI2CSystem(funcs: funcs, panel: model)
        let bus = try LinuxI2CBus(bus: 1, system: sys)
        var d = PanelDriver(bus: bus, panel: model)
        var f = Bitmap(width: 128, height: 64)
        for i in 0..<64 { f[i * 2, i] = true }
        _ = try d.flush(f)
        f[5, 5] = true
        _ = try d.flush(f)
        let panel = try #require(sys.state.withLock { $0.panel })
        #expect(panel.image == f)
        #expect(panel.problems.isEmpty)
    }
}

/// The real C path, as far as a machine without I²C hardware allows.
@Suite struct LiveI2CSystemTests {
    @Test func missingBusIsNoSuchBusWithThePiHint() {
        do {
            _ = try LinuxI2CBus(devicePath: "/dev/i2c-250")
            Issue.record("a bus /dev/i2c-250 should not exist here")
        } catch {
            #expect(error.kind == .noSuchBus && error.errno == Errno(ENOENT))
            // With no bus at all the hint says how to enable the Pi's; with some, it names them.
            let present = LiveI2CSystem().presentBuses()
            #expect(present.isEmpty ? error.hint.contains("dtparam=i2c_arm=on") : present.allSatisfy { error.hint.contains($0) })
        }
    }

    @Test func aNodeThatIsNotAnI2CAdapterFailsI2CFUNCS() {
        // /dev/null opens but refuses the I2C_FUNCS ioctl (ENOTTY): a typed error, not a crash.
        // Under qemu-user (the arm64 suite on amd64) the ioctl never reaches the kernel: the
        // emulator answers ENOSYS, which has a hint of its own.
        let emulated = runningUnderQemuUser()
        do {
            _ = try LinuxI2CBus(devicePath: "/dev/null")
            Issue.record("/dev/null is no I²C adapter")
        } catch {
            #expect(error.kind == .noSuchBus)
            if emulated {
                #expect(error.errno == Errno(ENOSYS) && error.hint.contains("not implemented here"))
            } else {
                #expect(error.errno == Errno(ENOTTY) && error.hint.contains("not an I²C adapter"))
            }
        }
    }
}

/// An arm64 process under qemu-user on an x86 machine: the emulator passes /proc/cpuinfo through
/// from the host (it fakes it for a few other targets only), so the process sees x86 fields.
func runningUnderQemuUser() -> Bool {
    #if arch(arm64)
    let fd = open("/proc/cpuinfo", O_RDONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    let info = String(decoding: bytes.prefix(max(n, 0)), as: UTF8.self)
    return info.contains("vendor_id") || info.contains("x86")
    #else
    return false
    #endif
}
