import Testing
import IsletTestSupport
#if canImport(Glibc)
import Glibc
#endif

// scripts/install.sh and scripts/uninstall.sh, run for real into a DESTDIR staging tree with
// stand-in binaries, unit and example config. In DESTDIR mode the system steps (accounts, udev,
// systemctl) are printed, not run, so this is safe on any machine.

private let repoRoot: String = {
    // …/Tests/IsletDaemonTests/ButtonsInstallScriptTests.swift → the package root.
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// Runs a shell command; its exit status. Through Process, not system(): system() hands the shell
/// every descriptor of this process, and tests running alongside lose theirs to it (a socket that
/// no longer closes, a fresh binary "Text file busy").
@discardableResult
private func sh(_ command: String) -> Int32 {
    let r = runProgram("/bin/sh", ["-c", command])
    return r.status
}

private func contents(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        out += buf[..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

private struct Stage {
    let dir: String
    var stage: String { "\(dir)/stage" }
    var log: String { "\(dir)/log" }

    init?() {
        var template = Array("/tmp/islet-install-XXXXXX".utf8CString)
        guard let d = template.withUnsafeMutableBufferPointer({ p -> String? in
            guard let base = p.baseAddress, let made = mkdtemp(base) else { return nil }
            return String(cString: made)
        }) else { return nil }
        dir = d
        sh("""
        mkdir -p '\(d)/bin' && printf '#!/bin/sh\\necho isletd\\n' > '\(d)/bin/isletd' \
        && printf '#!/bin/sh\\necho isletctl\\n' > '\(d)/bin/isletctl' && chmod 755 '\(d)/bin/'* \
        && printf '[Service]\\nExecStart=/usr/local/bin/isletd --config /etc/islet/isletd.conf\\n' > '\(d)/isletd.service' \
        && printf '[buttons]\\ndebounce_ms = 30\\n' > '\(d)/isletd.conf.example'
        """)
    }

    func run(_ script: String, _ env: String = "") -> Int32 {
        sh("""
        cd '\(repoRoot)' && env DESTDIR='\(stage)' PREFIX=/opt/islet SKIP_BUILD=1 BIN_DIR='\(dir)/bin' \
        UNIT_SRC='\(dir)/isletd.service' CONFIG_EXAMPLE='\(dir)/isletd.conf.example' \(env) \
        bash scripts/\(script).sh > '\(log)' 2>&1
        """)
    }

    func remove() { sh("rm -rf '\(dir)'") }
}

@Suite(.offPool) struct ButtonsInstallScriptTests {
    @Test func scriptsParse() {
        #expect(sh("bash -n '\(repoRoot)/scripts/install.sh'") == 0)
        #expect(sh("bash -n '\(repoRoot)/scripts/uninstall.sh'") == 0)
        #expect(sh("bash -n '\(repoRoot)/scripts/check-binaries.sh' && bash -n '\(repoRoot)/scripts/release.sh' && bash -n '\(repoRoot)/scripts/deb.sh'") == 0)
        for s in ["postinst", "prerm", "postrm"] {
            #expect(sh("sh -n '\(repoRoot)/packaging/debian/\(s)'") == 0, "\(s)")
        }
    }

    @Test func installPlacesEveryFileAndPrintsTheSystemSteps() throws {
        guard let s = Stage() else { Issue.record("no temp dir"); return }
        defer { s.remove() }
        #expect(s.run("install") == 0, "\(contents(s.log) ?? "")")
        #expect(sh("test -x '\(s.stage)/opt/islet/bin/isletd' && test -x '\(s.stage)/opt/islet/bin/isletctl'") == 0)
        // The unit follows PREFIX.
        #expect(contents("\(s.stage)/etc/systemd/system/isletd.service")?.contains("ExecStart=/opt/islet/bin/isletd") == true)
        #expect(contents("\(s.stage)/etc/islet/isletd.conf") == "[buttons]\ndebounce_ms = 30\n")
        #expect(contents("\(s.stage)/etc/udev/rules.d/60-islet-gpio.rules")?.contains("GROUP=\"gpio\"") == true)
        #expect(contents("\(s.stage)/etc/modules-load.d/islet-i2c.conf")?.contains("i2c-dev") == true)
        let log = contents(s.log) ?? ""
        // Issue 6 §3: service user in i2c and gpio, udev applied, unit enabled and started.
        #expect(log.contains("--groups i2c,gpio"))
        #expect(log.contains("udevadm trigger"))
        #expect(log.contains("systemctl enable isletd.service"))
        // A reinstall (an upgrade) must replace the running daemon, not leave the old binary up.
        #expect(log.contains("systemctl restart isletd.service"))
        // The unit's Group=islet exists even where login.defs makes no user groups.
        #expect(log.contains("--user-group") || sh("id -u islet >/dev/null 2>&1") == 0)
    }

    @Test func anEditedConfigSurvivesReinstallAndUninstallButNotPurge() throws {
        guard let s = Stage() else { Issue.record("no temp dir"); return }
        defer { s.remove() }
        #expect(s.run("install") == 0)
        let conf = "\(s.stage)/etc/islet/isletd.conf"
        sh("printf '[buttons]\\ndebounce_ms = 45\\n' > '\(conf)'")
        sh("mkdir -p '\(s.stage)/var/lib/islet' && echo '{}' > '\(s.stage)/var/lib/islet/state.json'")
        #expect(s.run("install") == 0)
        #expect(contents(conf) == "[buttons]\ndebounce_ms = 45\n")
        #expect(contents("\(conf).example") == "[buttons]\ndebounce_ms = 30\n")
        #expect(contents(s.log)?.contains("keeping your") == true)

        #expect(s.run("uninstall") == 0, "\(contents(s.log) ?? "")")
        #expect(!exists("\(s.stage)/opt/islet/bin/isletd"))
        #expect(!exists("\(s.stage)/etc/systemd/system/isletd.service"))
        #expect(!exists("\(s.stage)/etc/udev/rules.d/60-islet-gpio.rules"))
        #expect(contents(conf) == "[buttons]\ndebounce_ms = 45\n")
        #expect(!exists("\(conf).example"))
        #expect(exists("\(s.stage)/var/lib/islet/state.json"))

        #expect(s.run("uninstall", "PURGE=1") == 0)
        #expect(!exists(conf))
        #expect(!exists("\(s.stage)/var/lib/islet"))
        #expect(contents(s.log)?.contains("userdel") == true || sh("id -u islet >/dev/null 2>&1") != 0)
    }

    @Test func anUneditedConfigGoesWithUninstall() throws {
        guard let s = Stage() else { Issue.record("no temp dir"); return }
        defer { s.remove() }
        #expect(s.run("install") == 0)
        #expect(s.run("uninstall") == 0)
        #expect(!exists("\(s.stage)/etc/islet"))
    }

    /// Issue 10 §1: release binaries that would load the Swift runtime from the toolchain (as a
    /// plain `swift build` links them) cannot start under the unit's ProtectHome=yes or on a Pi
    /// without the toolchain. install.sh asks the dynamic loader and refuses them, naming the
    /// library, before it changes anything. This test bundle's own executable is such a binary.
    @Test func aBinaryThatLoadsTheToolchainRuntimeIsRefused() throws {
        guard let s = Stage() else { Issue.record("no temp dir"); return }
        defer { s.remove() }
        // Only meaningful where this process really loads libswiftCore from outside /lib, /usr/lib.
        guard sh("ldd /proc/\(getpid())/exe | grep -q 'libswiftCore.so => /opt\\|libswiftCore.so => /home\\|libswiftCore.so => /usr/local'") == 0 else {
            print("skipped: this test bundle does not load libswiftCore from a toolchain folder")
            return
        }
        sh("cp /proc/\(getpid())/exe '\(s.dir)/bin/isletd'")
        #expect(s.run("install") != 0)
        let log = contents(s.log) ?? ""
        #expect(log.contains("would load libraries from outside the system's library folders"), "\(log)")
        #expect(log.contains("libswiftCore.so"), "\(log)")
        #expect(log.contains("make release"), "\(log)")
        #expect(!exists("\(s.stage)/opt/islet/bin/isletd"))
        #expect(!exists("\(s.stage)/etc/systemd/system/isletd.service"))
    }

    @Test func theLoaderCheckAcceptsBinariesThatLoadOnlySystemLibraries() {
        #expect(sh("bash '\(repoRoot)/scripts/check-binaries.sh' /bin/ls /usr/bin/env") == 0)
        #expect(sh("bash '\(repoRoot)/scripts/check-binaries.sh' /nonexistent/isletd 2>/dev/null") != 0)
    }

    @Test func aDryRunChangesNothing() throws {
        guard let s = Stage() else { Issue.record("no temp dir"); return }
        defer { s.remove() }
        #expect(s.run("install", "DRY_RUN=1") == 0)
        #expect(!exists(s.stage))
        #expect(contents(s.log)?.contains("+ install -m 0755") == true)
    }
}

/// scripts/toolchain.sh, make's first step when `swift` is missing, on systems this machine is
/// not: stand-in `dpkg`, `apt-cache` and `getconf` on a PATH that has no Swift.
@Suite(.offPool) struct ToolchainScriptTests {
    /// Runs the script with only `bin` (stand-ins written there) on PATH.
    func run(_ tools: [String: String]) -> RunResult {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        for (name, body) in tools {
            let path = dir + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o755)
            let text = "#!/bin/sh\n" + body + "\n"
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        return runProgram("/bin/bash", [repoRoot + "/scripts/toolchain.sh"], env: ["PATH": dir, "SWIFT": "swift"])
    }

    @Test("a 32-bit Raspberry Pi OS is told to install the 64-bit one, not offered a compiler")
    func thirtyTwoBitIsRefusedClearly() {
        let r = run(["dpkg": "echo armhf", "getconf": "echo 32", "apt-cache": "echo 'Candidate: 6.0.3-2'"])
        #expect(r.status == 69)
        #expect(r.err.contains("32-bit system (armhf, 32-bit)"))
        #expect(r.err.contains("64-bit Raspberry Pi OS (arm64)"))
        #expect(!r.err.contains("installing"))
    }

    @Test("where apt has no swiftlang (bookworm) it points to the README, and installs nothing")
    func noSwiftlangPointsToTheReadme() {
        // id answers root so the script would try `apt-get update` (missing here: it must not matter).
        let r = run(["dpkg": "echo arm64", "apt-cache": "echo 'swiftlang:'; echo '  Candidate: (none)'", "id": "echo 0",
                     "sed": "/bin/sed \"$@\""])
        #expect(r.status == 69)
        #expect(r.err.contains("no swiftlang"))
        #expect(r.err.contains("Installing the Swift toolchain"))
    }
}
