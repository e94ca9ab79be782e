import IsletErrno
import Testing
import IsletSystem
import IsletLinux
#if canImport(Glibc)
import Glibc
#endif

// The real backend, through the C shim and the kernel. Where the kernel has no GPIO at all (this
// CI's VM: CONFIG_GPIOLIB off, no modprobe) the gpio-sim test skips and says why; the tests above
// it still run the shim's failure paths against real files.

private func writeFile(_ path: String, _ text: String) -> Bool {
    let fd = open(path, O_WRONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return text.withCString { write(fd, $0, strlen($0)) } == strlen(text)
}

private func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buf = [UInt8](repeating: 0, count: 256)
    let n = read(fd, &buf, buf.count)
    guard n > 0 else { return nil }
    return String(decoding: buf[..<n], as: UTF8.self).filter { $0 != "\n" }
}

private func makeTempDirectory() -> String? {
    var template = Array("/tmp/islet-gpio-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { p -> String? in
        guard let base = p.baseAddress, let made = mkdtemp(base) else { return nil }
        return String(cString: made)
    }
}

/// gpio-sim needs configfs and the module (root: `modprobe gpio-sim`).
enum GPIOSim {
    static let root = "/sys/kernel/config/gpio-sim"
    static var available: Bool { access(root, W_OK) == 0 }
}

// The time limit is on the one test that waits for a kernel (gpio-sim's edges); the others touch
// a temp folder only, and under qemu-user (the arm64 suite) waited minutes for a thread of the
// test pool, beside blocking tests, which tripped a suite-wide limit with nothing hung.
@Suite struct GPIOKernelTests {
    @Test func anEmptyDeviceDirectoryMeansNoChips() throws {
        guard let dir = makeTempDirectory() else { Issue.record("mkdtemp failed"); return }
        defer { rmdir(dir) }
        let backend = LibgpiodBackend(deviceDirectory: dir)
        #expect(try backend.chipPaths() == [])
        #expect(throws: GPIOError.noChips(directory: "/dev")) {
            _ = try GPIOButtons(lines: [GPIOButtons.Line(button: "toggle", spec: .named("GPIO17", chip: nil))], backend: backend)
        }
    }

    @Test func chipsAreListedInNumericOrder() throws {
        guard let dir = makeTempDirectory() else { Issue.record("mkdtemp failed"); return }
        let names = ["gpiochip10", "gpiochip2", "gpiochip0", "i2c-1"]
        for n in names { close(open("\(dir)/\(n)", O_CREAT | O_WRONLY, 0o600)) }
        defer { for n in names { unlink("\(dir)/\(n)") }; rmdir(dir) }
        #expect(try LibgpiodBackend(deviceDirectory: dir).chipPaths() == ["gpiochip0", "gpiochip2", "gpiochip10"].map { "\(dir)/\($0)" })
    }

    @Test func aFileThatIsNoChipFailsWithItsErrnoThroughTheShim() throws {
        // libgpiod refuses anything but a GPIO character device; the errno comes back, typed.
        guard let dir = makeTempDirectory() else { Issue.record("mkdtemp failed"); return }
        let path = "\(dir)/gpiochip0"
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        defer { unlink(path); rmdir(dir) }
        do {
            _ = try LibgpiodBackend(deviceDirectory: dir).describeChip(at: path)
            Issue.record("a regular file opened as a GPIO chip")
        } catch {
            #expect(error.code != 0)
            #expect(!error.description.isEmpty)
        }
        #expect(throws: Errno.self) { _ = try LibgpiodBackend().describeChip(at: "\(dir)/missing") }
    }

    @Test(.enabled(if: GPIOSim.available,
                   "gpio-sim is not available here: it needs the gpio-sim module and configfs (as root: modprobe gpio-sim)"),
          .timeLimit(.minutes(1)))
    func aSimulatedChipDeliversPressesWithKernelTimestamps() throws {
        let dev = "\(GPIOSim.root)/islet-test-\(getpid())"
        #expect(mkdir(dev, 0o755) == 0)
        #expect(mkdir("\(dev)/bank0", 0o755) == 0)
        #expect(writeFile("\(dev)/bank0/num_lines", "8"))
        #expect(writeFile("\(dev)/bank0/label", "islet-sim"))
        #expect(mkdir("\(dev)/bank0/line5", 0o755) == 0)
        #expect(writeFile("\(dev)/bank0/line5/name", "ISLET_BTN"))
        #expect(writeFile("\(dev)/live", "1"))
        defer {
            _ = writeFile("\(dev)/live", "0")
            rmdir("\(dev)/bank0/line5"); rmdir("\(dev)/bank0"); rmdir(dev)
        }
        guard let chipName = readFile("\(dev)/bank0/chip_name"), let devName = readFile("\(dev)/dev_name") else {
            Issue.record("gpio-sim did not report its chip"); return
        }
        // Found by label and by name, like a Pi 5's pinctrl-rp1.
        let buttons = try GPIOButtons(lines: [GPIOButtons.Line(button: "toggle", spec: .named("ISLET_BTN", chip: "islet-sim"))])
        #expect(buttons.resolved.first?.chip == chipName)
        #expect(buttons.resolved.first?.offset == 5)
        // The requested pull-up holds the line high: released. Pulling it down is a press.
        let pull = "/sys/devices/platform/\(devName)/\(chipName)/sim_gpio5/pull"
        let before = monotonicNanoseconds()
        #expect(writeFile(pull, "pull-down"))
        var p = pollfd(fd: buttons.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 1_000) == 1)
        let edges = try buttons.readEdges()
        #expect(edges.map(\.pressed) == [true])
        // Kernel timestamps are CLOCK_MONOTONIC (uAPI v1, Linux ≥ 5.7).
        #expect(edges.allSatisfy { $0.timestampNanoseconds >= before && $0.timestampNanoseconds <= monotonicNanoseconds() })
        #expect(writeFile(pull, "pull-up"))
        #expect(poll(&p, 1, 1_000) == 1)
        #expect(try buttons.readEdges().map(\.pressed) == [false])
    }
}
