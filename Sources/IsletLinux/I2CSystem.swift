import CI2C
import IsletErrno
import IsletSystem

/// The thin seam just above the C calls of the I²C path: each function is one system or libi2c
/// call, returning a value or the errno it failed with. Production uses `LiveI2CSystem`; tests
/// replace it to drive both transports and every errno through `LinuxI2CBus`.
public protocol I2CSystem: Sendable {
    /// open(2) with O_RDWR; the file descriptor (the bus owns it: `close` ends it) or errno.
    func open(_ path: String) -> Result<Descriptor, Errno>
    func close(_ fd: Descriptor)
    /// ioctl(I2C_FUNCS): the adapter's functionality bit mask.
    func functionality(_ fd: Descriptor) -> Result<UInt, Errno>
    /// ioctl(I2C_SLAVE): selects the address later SMBus calls go to.
    func setSlaveAddress(_ fd: Descriptor, _ address: UInt8) -> Result<Void, Errno>
    /// ioctl(I2C_RDWR) with one write message.
    func plainWrite(_ fd: Descriptor, address: UInt8, bytes: [UInt8]) -> Result<Void, Errno>
    /// libi2c i2c_smbus_write_i2c_block_data: `command` then at most 32 bytes.
    func smbusBlockWrite(_ fd: Descriptor, command: UInt8, bytes: [UInt8]) -> Result<Void, Errno>
    /// The I²C buses this machine has, as `/dev/i2c-N` with the adapter's name where the kernel
    /// gives one, in bus order: what an error about a missing bus names.
    func presentBuses() -> [String]
}

extension I2CSystem {
    public func presentBuses() -> [String] { [] }
}

/// I2C_FUNCS bits the bus looks at (linux/i2c.h).
public enum I2CFunctionality {
    public static let plainI2C = UInt(islet_i2c_func_i2c())
    public static let smbusWriteI2CBlock = UInt(islet_i2c_func_smbus_write_i2c_block())
}

/// The real calls, through the C shim that returns -errno.
public struct LiveI2CSystem: I2CSystem {
    public init() {}

    private func check(_ r: Int32) -> Result<Void, Errno> {
        r < 0 ? .failure(Errno(-r)) : .success(())
    }

    public func open(_ path: String) -> Result<Descriptor, Errno> {
        let r = islet_i2c_open(path)
        return r < 0 ? .failure(Errno(-r)) : .success(Descriptor(r))
    }

    public func close(_ fd: Descriptor) { _ = islet_i2c_close(fd.raw) }

    public func functionality(_ fd: Descriptor) -> Result<UInt, Errno> {
        var funcs: UInt = 0
        let r = islet_i2c_get_funcs(fd.raw, &funcs)
        return r < 0 ? .failure(Errno(-r)) : .success(funcs)
    }

    public func setSlaveAddress(_ fd: Descriptor, _ address: UInt8) -> Result<Void, Errno> {
        check(islet_i2c_set_slave(fd.raw, UInt16(address)))
    }

    public func plainWrite(_ fd: Descriptor, address: UInt8, bytes: [UInt8]) -> Result<Void, Errno> {
        guard bytes.count <= Int(UInt16.max) else { return .failure(Errno(EMSGSIZE)) }
        return check(bytes.withUnsafeBufferPointer { islet_i2c_rdwr_write(fd.raw, UInt16(address), $0.baseAddress, UInt16($0.count)) })
    }

    public func smbusBlockWrite(_ fd: Descriptor, command: UInt8, bytes: [UInt8]) -> Result<Void, Errno> {
        guard bytes.count <= 32 else { return .failure(Errno(EMSGSIZE)) }
        return check(bytes.withUnsafeBufferPointer { islet_i2c_smbus_block_write(fd.raw, command, $0.baseAddress, UInt8($0.count)) })
    }

    /// The nodes in /dev, each with its adapter's name from sysfs (`bcm2835 (i2c@7e804000)` for
    /// a Pi's header bus), so a person can tell which to configure without i2cdetect.
    public func presentBuses() -> [String] {
        let names = (try? FileSystem.directoryEntries("/dev")) ?? []
        let numbers = names.compactMap { n -> Int? in n.hasPrefix("i2c-") ? Int(n.dropFirst(4)) : nil }.sorted()
        return numbers.map { n in
            let adapter = (try? FileSystem.readFile("/sys/class/i2c-dev/i2c-\(n)/name", limit: 256).get())
                .flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init) } ?? ""
            return "/dev/i2c-\(n)" + (adapter.isEmpty ? "" : " (\(adapter))")
        }
    }
}
