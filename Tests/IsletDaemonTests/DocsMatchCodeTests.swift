import Foundation
import Testing

/// Docs that name code name code that exists: every backticked `Type` or `Type.member` in
/// README.md and docs/*.md is declared in Sources or Tests, every backticked `File.swift` is a
/// file of the repository, and README's module table lists exactly the targets in Sources.
@Suite("docs match the code")
struct DocsMatchCodeTests {
    /// Names the docs use that are not ours to declare: Swift's and the kernel's, a systemd
    /// property, a Debian control field, a placeholder.
    static let external: Set<String> = ["Mutex", "Sendable", "VmHWM", "StatusText", "LimitNOFILE", "Depends", "WxH", "init",
                                        "PrivateNetwork", "RestrictAddressFamilies", "IPAddressAllow", "IPAddressDeny"]

    static func files(under dir: String, ending suffix: String) -> [String] {
        let root = Repo.root + "/" + dir
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.map { root + "/" + $0 }
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Every name a declaration introduces, each file's base name, each target's directory.
    static let declared: Set<String> = {
        var names = Set<String>()
        let decl = try? NSRegularExpression(pattern: #"\b(?:class|struct|enum|protocol|actor|typealias|func|var|let|case|extension|associatedtype)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        let cases = try? NSRegularExpression(pattern: #"\bcase\s+([^:\n=]+)"#)
        for f in files(under: "Sources", ending: ".swift") + files(under: "Tests", ending: ".swift") {
            let t = text(f)
            let range = NSRange(t.startIndex..., in: t)
            decl?.enumerateMatches(in: t, range: range) { m, _, _ in
                if let m, let r = Range(m.range(at: 1), in: t) { names.insert(String(t[r])) }
            }
            cases?.enumerateMatches(in: t, range: range) { m, _, _ in
                guard let m, let r = Range(m.range(at: 1), in: t) else { return }
                for part in t[r].split(whereSeparator: { ",( \t".contains($0) }) { names.insert(String(part)) }
            }
            names.insert(String(f.split(separator: "/").last?.dropLast(6) ?? ""))
        }
        for dir in ["Sources", "Tests", "Plugins"] {
            for d in (try? FileManager.default.contentsOfDirectory(atPath: Repo.root + "/" + dir)) ?? [] { names.insert(d) }
        }
        return names
    }()

    static let docs: [String] = [Repo.root + "/README.md"] + files(under: "docs", ending: ".md").sorted()

    @Test("every backticked type, member and Swift file in the docs exists")
    func namedSymbolsExist() throws {
        let span = try NSRegularExpression(pattern: "`([^`\\n]+)`")
        let symbol = try NSRegularExpression(pattern: #"^([A-Z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\(.*\))?$"#)
        let opcode = try NSRegularExpression(pattern: "^[0-9A-F]{2}h$")
        let swiftFiles = Set((Self.files(under: "Sources", ending: ".swift") + Self.files(under: "Tests", ending: ".swift"))
            .compactMap { $0.split(separator: "/").last.map(String.init) })
        var missing: [String] = []
        var checked = 0
        for doc in Self.docs {
            for (n, line) in Self.text(doc).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let l = String(line)
                for m in span.matches(in: l, range: NSRange(l.startIndex..., in: l)) {
                    guard let r = Range(m.range(at: 1), in: l) else { continue }
                    let s = String(l[r])
                    let whole = NSRange(s.startIndex..., in: s)
                    let place = "\(doc.split(separator: "/").last ?? ""):\(n + 1) `\(s)`"
                    if s.hasSuffix(".swift"), !s.contains("/") {
                        checked += 1
                        if !swiftFiles.contains(s) { missing.append(place + " (no such file)") }
                        continue
                    }
                    guard opcode.firstMatch(in: s, range: whole) == nil,
                          let sm = symbol.firstMatch(in: s, range: whole), let nr = Range(sm.range(at: 1), in: s) else { continue }
                    let parts = s[nr].split(separator: ".").map(String.init)
                    // ALL_CAPS names are C macros and kernel options, not ours.
                    guard let head = parts.first, head.contains(where: \.isLowercase) else { continue }
                    checked += 1
                    let unknown = parts.filter { !Self.declared.contains($0) && !Self.external.contains($0) }
                    if !unknown.isEmpty { missing.append(place + " (\(unknown.joined(separator: ", ")) not declared)") }
                }
            }
        }
        #expect(checked > 100, "the docs name only \(checked) symbols: is the scan broken?")
        #expect(missing.isEmpty, "docs name code that does not exist:\n\(missing.joined(separator: "\n"))")
    }

    @Test("README's module table lists exactly the Swift targets in Sources")
    func readmeModuleTable() throws {
        let readme = Self.text(Repo.root + "/README.md")
        // The table's first column: `| Name | …` rows; a cell may name two (`a, b`).
        var listed = Set<String>()
        for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for name in cell.split(separator: ",") {
                let n = name.trimmingCharacters(in: .whitespaces)
                if n.hasPrefix("Islet") || n.hasPrefix("islet") { listed.insert(n) }
            }
        }
        let fm = FileManager.default
        let targets = Set(try fm.contentsOfDirectory(atPath: Repo.root + "/Sources").filter { name in
            // Swift targets only: the C shims (modulemaps) are described with the module that uses them.
            let dir = Repo.root + "/Sources/" + name
            return !fm.fileExists(atPath: dir + "/module.modulemap") && !fm.fileExists(atPath: dir + "/include")
        })
        #expect(targets.subtracting(listed).isEmpty, "targets README's module table does not list: \(targets.subtracting(listed).sorted())")
        #expect(listed.subtracting(targets).subtracting(["Plugins/IsletStringsPlugin"]).isEmpty,
                "README lists modules that do not exist: \(listed.subtracting(targets).sorted())")
    }

    /// The targets that may import the C library: the system-call boundary and its errno.
    static let cBoundary: Set<String> = ["IsletSystem", "IsletErrno"]

    @Test("system calls go through IsletSystem: no target but IsletSystem and IsletErrno imports Glibc")
    func oneCBoundary() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Repo.root + "/Sources")
        var importers: [String] = []
        // The C targets hold no Swift file, so every target with one is checked.
        for target in targets.sorted() where !Self.cBoundary.contains(target) {
            for f in Self.files(under: "Sources/" + target, ending: ".swift") {
                let lines = Self.text(f).split(separator: "\n")
                if lines.contains(where: Self.importsGlibc) { importers.append(f) }
            }
        }
        #expect(!Self.files(under: "Sources/IsletDaemon", ending: ".swift").isEmpty, "the scan found no sources")
        #expect(targets.contains("isletctl") && targets.contains("islet-bench"), "the scan found no executables")
        #expect(importers.isEmpty, "import Glibc outside the C boundary: \(importers)")
    }

    /// `import Glibc`, `@_exported import Glibc` or `import func Glibc.write`.
    static func importsGlibc(_ line: Substring) -> Bool {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let i = words.firstIndex(of: "import"), words[..<i].allSatisfy({ $0.hasPrefix("@") }) else { return false }
        return words[(i + 1)...].contains { $0 == "Glibc" || $0.hasPrefix("Glibc.") }
    }
}
