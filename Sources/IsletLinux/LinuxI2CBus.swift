import IsletErrno
import IsletSystem
import Synchronization
import IsletDisplay

/// The production bus over /dev/i2c-N. It reads the adapter's functionality once and uses plain
/// I²C writes (I2C_RDWR, up to 4 KiB) when offered, else SMBus I²C-block writes of 32 bytes
/// through libi2c, the control byte travelling as the SMBus command byte.
public final class LinuxI2CBus: I2CBus, Sendable {
    public let devicePath: String
    public let capabilities: I2CCapabilities
    private let system: any I2CSystem
    private let fd: Descriptor
    /// Address last selected with I2C_SLAVE; 0xFF when none.
    private let selected = Mutex<UInt8>(0xFF)

    /// Opens bus N (/dev/i2c-N).
    public convenience init(bus number: Int, system: any I2CSystem = LiveI2CSystem()) throws(I2CError) {
        try self.init(devicePath: "/dev/i2c-\(number)", system: system)
    }

    /// Opens a bus device node. `preferred` forces a transport (the adapter must offer it).
    public init(devicePath: String, preferred: I2CTransport? = nil, system: any I2CSystem = LiveI2CSystem()) throws(I2CError) {
        self.devicePath = devicePath
        self.system = system
        let fd: Descriptor
        switch system.open(devicePath) {
        case .success(let f): fd = f
        case .failure(let e):
            var error = I2CError.opening(device: devicePath, errno: e)
            // Buses exist but not this one: a wrong number in the config, so name those there are
            // (with none, the hint on enabling the Pi's bus stands).
            let present = error.kind == .noSuchBus ? system.presentBuses() : []
            if !present.isEmpty {
                error.hint = "no I²C bus at \(devicePath); the buses here are " + present.joined(separator: ", ")
                    + ": set `[display] bus` to one of them (a Raspberry Pi's header pins 3 and 5 are /dev/i2c-1)"
            }
            throw error
        }
        let funcs: UInt
        switch system.functionality(fd) {
        case .success(let f): funcs = f
        case .failure(let e):
            system.close(fd)
            throw I2CError.opening(device: devicePath, errno: e)
        }
        let plain = funcs & I2CFunctionality.plainI2C != 0
        let block = funcs & I2CFunctionality.smbusWriteI2CBlock != 0
        let transport: I2CTransport
        switch preferred {
        case .plainI2C? where plain, nil where plain: transport = .plainI2C
        case .smbusBlock? where block, nil where block: transport = .smbusBlock
        default:
            system.close(fd)
            var e = I2CError.opening(device: devicePath, errno: .notSupported)
            e.kind = .unsupported
            e.hint = "the adapter behind \(devicePath) offers neither plain I²C writes nor SMBus I²C-block writes"
                + (preferred.map { " (or not the requested \($0))" } ?? "") + "; use another bus"
            throw e
        }
        self.fd = fd
        capabilities = transport == .plainI2C ? .plainI2C : .smbusBlock
    }

    deinit { system.close(fd) }

    public func write(address: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard let command = bytes.first, bytes.count <= capabilities.maxTransactionBytes, address < 0x80 else {
            throw I2CError.transfer(device: devicePath, address: address, errno: bytes.isEmpty || address >= 0x80 ? .invalidArgument : .messageTooLong)
        }
        // I2C_SLAVE (not I2C_SLAVE_FORCE) once per address on both transports: it is where the
        // kernel reports EBUSY for an address a driver has claimed (an ssd1306 overlay). I2C_RDWR
        // skips that check, so without it the plain path would fight the kernel driver silently.
        let result: Result<Void, Errno> = selected.withLock { current in
            if current != address {
                switch system.setSlaveAddress(fd, address) {
                case .success: current = address
                case .failure(let e): return .failure(e)
                }
            }
            switch capabilities.transport {
            case .plainI2C:
                return system.plainWrite(fd, address: address, bytes: bytes)
            case .smbusBlock:
                return system.smbusBlockWrite(fd, command: command, bytes: Array(bytes.dropFirst()))
            }
        }
        if case .failure(let e) = result {
            throw I2CError.transfer(device: devicePath, address: address, errno: e)
        }
    }

    /// Finds a panel by writing a harmless NOP command (00h E3h) to each candidate address in order;
    /// returns the first that acknowledges, nil when none does. Other errors are thrown.
    public func probe(_ candidates: [UInt8] = [0x3C, 0x3D]) throws(I2CError) -> UInt8? {
        for a in candidates {
            do {
                try write(address: a, bytes: [0x00, 0xE3])
                return a
            } catch where error.kind == .noAcknowledge {
                continue
            }
        }
        return nil
    }
}
