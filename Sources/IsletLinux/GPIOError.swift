import IsletSystem
import IsletErrno

/// What went wrong with GPIO, worded so a person can act on it.
public enum GPIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No /dev/gpiochip* exists at all.
    case noChips(directory: String)
    /// The configured chip matches no chip's path, name, label or number.
    case chipNotFound(chip: String, available: [GPIOChipInfo])
    /// No chip (or not the configured one) has a line of this name.
    case lineNotFound(line: String, searched: [GPIOChipInfo])
    case offsetOutOfRange(offset: UInt32, chip: GPIOChipInfo)
    /// A line spec that cannot be read ("GPIO17", "17" with a chip, "gpiochip0:17").
    case badLineSpec(text: String, reason: String)
    /// Two buttons (or a button and the chime) name the same line.
    case lineUsedTwice(line: String, users: [String])
    /// EACCES/EPERM opening a chip: the user must join the group that owns the device.
    case permissionDenied(path: String, group: String)
    /// EBUSY: another program holds the line.
    case lineBusy(line: String, chip: String, consumer: String)
    /// Any other failed call, with the device and the errno text.
    case system(operation: String, path: String, errno: Errno)

    public var description: String {
        switch self {
        case .noChips(let dir):
            return "no GPIO chip found (no \(dir)/gpiochip*): this machine exposes no GPIO character devices; "
                + "on a Raspberry Pi run a current Raspberry Pi OS, elsewhere use the mock buttons (--buttons mock)"
        case .chipNotFound(let chip, let available):
            return "no GPIO chip matches \"\(chip)\" (a chip is named by path, name, label or number); "
                + "chips here: " + GPIOChipInfo.summary(available)
        case .lineNotFound(let line, let searched):
            let names = searched.map { c in
                let named = c.lines.map(\.name).filter { !$0.isEmpty }
                return "\(c.name) [\(c.label)]: " + (named.isEmpty ? "(no line names; use chip:offset)" : named.joined(separator: " "))
            }
            return "no GPIO line named \"\(line)\" on " + (searched.count == 1 ? "chip \(searched[0].name)" : "any chip")
                + "; line names that exist — " + (names.isEmpty ? "none" : names.joined(separator: "; "))
        case .offsetOutOfRange(let offset, let chip):
            return "\(chip.name) [\(chip.label)] has lines 0…\(max(chip.lines.count, 1) - 1); offset \(offset) does not exist"
        case .badLineSpec(let text, let reason):
            return "cannot read the GPIO line \"\(text)\": \(reason); write a line name (GPIO17), "
                + "chip:offset (gpiochip0:17) or chip:name (pinctrl-rp1:GPIO17)"
        case .lineUsedTwice(let line, let users):
            return "GPIO line \(line) is configured for more than one use (\(users.joined(separator: ", "))); give each its own line"
        case .permissionDenied(let path, let group):
            return "permission denied opening \(path): add the user to the '\(group)' group "
                + "(sudo usermod -aG \(group) $USER, then log in again); `make install` does this for the islet service user "
                + "and installs a udev rule giving /dev/gpiochip* to group 'gpio'"
        case .lineBusy(let line, let chip, let consumer):
            return "GPIO line \(line) on \(chip) is in use by \"\(consumer.isEmpty ? "another program" : consumer)\"; "
                + "stop that program (see `gpioinfo`) or choose another line"
        case .system(let op, let path, let e):
            return "\(op) \(path): \(e) (errno \(e.code))"
        }
    }
}
