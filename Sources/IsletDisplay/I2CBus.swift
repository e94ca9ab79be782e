import IsletSystem
import IsletErrno
import IsletFrame

/// How an adapter moves a write: plain I²C messages (I2C_RDWR) or SMBus I²C-block writes,
/// where the first byte (the SSD1306 control byte) travels as the SMBus command byte.
public enum I2CTransport: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case plainI2C = "i2c"
    case smbusBlock = "smbus"
    public var description: String { rawValue }
}

/// What one bus can carry in one transaction, counted after the address byte.
public struct I2CCapabilities: Sendable, Hashable {
    public var transport: I2CTransport
    /// Largest number of bytes one write may carry (control byte included).
    public var maxTransactionBytes: Int

    public init(transport: I2CTransport, maxTransactionBytes: Int) {
        self.transport = transport
        self.maxTransactionBytes = max(2, maxTransactionBytes)
    }

    /// Plain I²C writes of up to 4 KiB (I2C_RDWR).
    public static let plainI2C = I2CCapabilities(transport: .plainI2C, maxTransactionBytes: 4096)
    /// SMBus I²C-block writes: one command byte plus at most 32 data bytes (I2C_SMBUS_BLOCK_MAX).
    public static let smbusBlock = I2CCapabilities(transport: .smbusBlock, maxTransactionBytes: 33)
}

/// One bus a panel hangs on. A write is one transaction: start, the 7-bit address, `bytes`, stop.
public protocol I2CBus: Sendable {
    var capabilities: I2CCapabilities { get }
    /// Writes `bytes` (at least one; the first is the control byte) to a 7-bit address.
    func write(address: UInt8, bytes: [UInt8]) throws(I2CError)
}

/// A failed bus operation: which device, which address, which errno, and what to do about it.
public struct I2CError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No device acknowledged the address (ENXIO, EREMOTEIO, ENODEV on a transfer).
        case noAcknowledge
        /// The device node exists but this user may not open it (EACCES, EPERM).
        case permissionDenied
        /// No such bus device node (ENOENT, or ENODEV when opening).
        case noSuchBus
        /// Another driver owns the address (EBUSY).
        case busy
        /// The adapter cannot do what was asked (EOPNOTSUPP, or a transaction too long).
        case unsupported
        /// Bus timeout or arbitration trouble (ETIMEDOUT, EAGAIN, EIO): a loose wire or noise.
        case transfer
    }

    public var kind: Kind
    public var device: String
    /// The 7-bit address, nil when the failure is not tied to one (opening the bus).
    public var address: UInt8?
    public var errno: Errno
    public var hint: String

    public init(kind: Kind, device: String, address: UInt8?, errno: Errno, hint: String) {
        self.kind = kind
        self.device = device
        self.address = address
        self.errno = errno
        self.hint = hint
    }

    /// Maps an errno from opening a bus device node.
    public static func opening(device: String, errno code: Errno) -> I2CError {
        switch code {
        case .noSuchFileOrDirectory, .noSuchDevice, .noSuchAddressOrDevice:
            return I2CError(kind: .noSuchBus, device: device, address: nil, errno: code,
                            hint: "no I²C bus at \(device): on a Raspberry Pi enable it with `dtparam=i2c_arm=on` in /boot/firmware/config.txt (or `raspi-config nonint do_i2c 0`), load i2c-dev, reboot, then check `ls /dev/i2c-*`")
        case .inappropriateIOCTLForDevice:
            return I2CError(kind: .noSuchBus, device: device, address: nil, errno: code,
                            hint: "\(device) is not an I²C adapter (it refuses I2C_FUNCS): give the bus device, e.g. /dev/i2c-1 (`ls /dev/i2c-*`, `i2cdetect -l`)")
        case .functionNotImplemented:
            // No kernel answers an ioctl with ENOSYS; qemu-user does for the I²C ioctls it does
            // not translate (an arm64 build run on a desktop through binfmt_misc).
            return I2CError(kind: .noSuchBus, device: device, address: nil, errno: code,
                            hint: "the I²C ioctls are not implemented here (I2C_FUNCS answers ENOSYS): is this an emulator such as qemu-user, which does not pass them to the kernel? Run on the board itself, or use the mock bus (--bus mock)")
        case .permissionDenied, .notPermitted:
            return I2CError(kind: .permissionDenied, device: device, address: nil, errno: code,
                            hint: "permission denied on \(device): add the user to the `i2c` group (`sudo usermod -aG i2c $USER`, then log in again) or run the service with SupplementaryGroups=i2c")
        default:
            return transferError(device: device, address: nil, errno: code)
        }
    }

    /// Maps an errno from a transfer (ioctl or libi2c call) to one address.
    public static func transfer(device: String, address: UInt8, errno code: Errno) -> I2CError {
        switch code {
        case .permissionDenied, .notPermitted, .noSuchFileOrDirectory:
            var e = opening(device: device, errno: code)
            e.address = address
            return e
        default:
            return transferError(device: device, address: address, errno: code)
        }
    }

    private static func transferError(device: String, address: UInt8?, errno code: Errno) -> I2CError {
        let at = address.map { " at 0x" + Hex.byte($0) } ?? ""
        switch code {
        case .noSuchAddressOrDevice, .remoteIO, .noSuchDevice:
            return I2CError(kind: .noAcknowledge, device: device, address: address, errno: code,
                            hint: "no device acknowledged\(at) on \(device): check wiring (SDA, SCL, VCC, GND) and the address (0x3c or 0x3d, `i2cdetect -y N`)")
        case .resourceBusy:
            return I2CError(kind: .busy, device: device, address: address, errno: code,
                            hint: "the address\(at) is claimed by a kernel driver: remove a display overlay such as `dtoverlay=ssd1306` from config.txt or unbind the ssd130x driver, then retry")
        case .notSupported, .invalidArgument, .messageTooLong:
            return I2CError(kind: .unsupported, device: device, address: address, errno: code,
                            hint: "the adapter behind \(device) refused this transfer: Islet falls back to SMBus block writes when I2C_FUNCS lacks plain I²C; report the adapter if this persists")
        default:
            return I2CError(kind: .transfer, device: device, address: address, errno: code,
                            hint: "the transfer\(at) on \(device) failed: check the cable and pull-ups, or lower the bus speed (`dtparam=i2c_arm_baudrate=100000`)")
        }
    }

    public var description: String {
        let at = address.map { " address 0x" + Hex.byte($0) } ?? ""
        return "\(device)\(at): \(errno) (errno \(errno.code)); \(hint)"
    }
}
