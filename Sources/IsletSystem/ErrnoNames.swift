#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

// The errno values the project tests for, by name, so no module above this one needs the C
// library's constants (names after swift-system's).
extension Errno {
    public static let notPermitted = Errno(EPERM)
    public static let noSuchFileOrDirectory = Errno(ENOENT)
    public static let interrupted = Errno(EINTR)
    public static let ioError = Errno(EIO)
    public static let noSuchAddressOrDevice = Errno(ENXIO)
    public static let wouldBlock = Errno(EAGAIN)
    public static let permissionDenied = Errno(EACCES)
    public static let resourceBusy = Errno(EBUSY)
    public static let fileExists = Errno(EEXIST)
    public static let noSuchDevice = Errno(ENODEV)
    public static let invalidArgument = Errno(EINVAL)
    public static let inappropriateIOCTLForDevice = Errno(ENOTTY)
    public static let functionNotImplemented = Errno(ENOSYS)
    public static let fileTooLarge = Errno(EFBIG)
    public static let brokenPipe = Errno(EPIPE)
    public static let fileNameTooLong = Errno(ENAMETOOLONG)
    public static let messageTooLong = Errno(EMSGSIZE)
    public static let notSupported = Errno(EOPNOTSUPP)
    public static let addressInUse = Errno(EADDRINUSE)
    public static let timedOut = Errno(ETIMEDOUT)
    public static let canceled = Errno(ECANCELED)
    public static let remoteIO = Errno(EREMOTEIO)
    public static let tooManyOpenFiles = Errno(EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(ENFILE)

    /// EAGAIN or EWOULDBLOCK (the same value on Linux, not by the standard).
    public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}
