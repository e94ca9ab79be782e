import Foundation
import Testing

/// docs/ARCHITECTURE.md's claims that can be read off the code are checked against it: the
/// module table's "depends on" column against each module's imports, and the table of the
/// daemon's parts against the types that meet `DaemonPart`.
@Suite("the architecture doc matches the code")
struct ArchitectureMatchesCodeTests {
    static let doc = DocsMatchCodeTests.text(Repo.root + "/docs/ARCHITECTURE.md")

    /// The cells of each row of the table whose header row starts with `| first |`.
    static func rows(ofTableStartingWith first: String) -> [[String]] {
        var rows: [[String]] = []
        var inTable = false
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("| \(first) |") { inTable = true; continue }
            guard inTable else { continue }
            guard l.hasPrefix("|") else { break }
            if l.hasPrefix("|---") { continue }
            rows.append(l.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return rows
    }

    /// The Swift modules of this package (and Foundation's piece) that an import can name.
    static let ourModules: Set<String> = {
        let dirs = (try? FileManager.default.contentsOfDirectory(atPath: Repo.root + "/Sources")) ?? []
        return Set(dirs.filter { $0.hasPrefix("Islet") }).union(["FoundationEssentials"])
    }()

    /// The modules a target's files import (ours only; C modules are named by their library).
    static func imports(of module: String) -> Set<String> {
        var found = Set<String>()
        for f in DocsMatchCodeTests.files(under: "Sources/" + module, ending: ".swift") {
            for line in DocsMatchCodeTests.text(f).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count >= 2, let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                let name = String(words[i + 1])
                if ourModules.contains(name) { found.insert(name) }
            }
        }
        return found
    }

    @Test("each module's row names exactly the modules of ours it imports")
    func moduleDependencies() throws {
        let rows = Self.rows(ofTableStartingWith: "module")
        #expect(rows.count >= 15, "the module table was not found in docs/ARCHITECTURE.md")
        var checked = 0
        for row in rows where row.count == 3 && Self.ourModules.contains(row[0]) {
            // "all of the above" (the daemon) is not a list to compare.
            guard !row[2].contains("all of the above") else { continue }
            let listed = Set(row[2].split(whereSeparator: { " ,()".contains($0) }).map(String.init)).intersection(Self.ourModules)
            let imported = Self.imports(of: row[0]).subtracting([row[0]])
            #expect(imported.subtracting(listed).isEmpty, "\(row[0]) imports \(imported.subtracting(listed).sorted()) but its row does not say so")
            #expect(listed.subtracting(imported).isEmpty, "\(row[0])'s row names \(listed.subtracting(imported).sorted()), which it does not import")
            checked += 1
        }
        #expect(checked >= 14)
    }

    /// Every type that meets `DaemonPart`, with the file that declares it.
    static func partTypes() throws -> [String: String] {
        let conformance = try NSRegularExpression(pattern: #"class\s+([A-Za-z0-9_]+)\s*:[^{]*\bDaemonPart\b"#)
        var parts: [String: String] = [:]
        for f in DocsMatchCodeTests.files(under: "Sources", ending: ".swift") {
            let t = DocsMatchCodeTests.text(f)
            for m in conformance.matches(in: t, range: NSRange(t.startIndex..., in: t)) {
                if let r = Range(m.range(at: 1), in: t) { parts[String(t[r])] = f }
            }
        }
        return parts
    }

    /// A part is documented in the parts table, or in a folder of its own by its type's doc
    /// comment, which says what it owns (a part added the documented way: docs/ARCHITECTURE.md
    /// "Adding a part"); the table names no type that is not a part.
    @Test("every type that meets DaemonPart is in the parts table or documents itself in a folder of its own")
    func partsTable() throws {
        let rows = Self.rows(ofTableStartingWith: "in the list")
        let listed = Set(rows.compactMap { $0.first?.split(separator: "`").first.map(String.init) })
        let parts = try Self.partTypes()
        #expect(parts.count >= 7, "found \(parts.keys.sorted())")
        #expect(listed.subtracting(parts.keys).isEmpty, "the table lists \(listed.subtracting(parts.keys).sorted()), which are not parts")
        for (part, file) in parts where !listed.contains(part) {
            let folder = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
            let ownFolder = !Self.ourModules.contains(String(folder.split(separator: "/").last ?? ""))
            let lines = DocsMatchCodeTests.text(file).split(separator: "\n", omittingEmptySubsequences: false)
            let declaration = lines.firstIndex { $0.contains("class \(part)") } ?? 0
            let doc = lines[..<declaration].reversed().prefix { $0.hasPrefix("///") }.joined(separator: " ")
            let says = ["config:", "status:", "saved:", "events:"].filter { !doc.contains($0) }
            #expect(ownFolder && says.isEmpty,
                    "\(part) (\(file)) is neither in the parts table nor in a folder of its own with a doc comment that says \(says)")
        }
    }
}

/// docs/ARCHITECTURE.md "Adding a part" is a recipe: its files, its registry line and its folder
/// are the code's.
@Suite("the recipe for a part matches the registry")
struct PartRecipeTests {
    static let recipe: String = {
        let doc = DocsMatchCodeTests.text(Repo.root + "/docs/ARCHITECTURE.md")
        guard let start = doc.range(of: "### Adding a part") else { return "" }
        let rest = doc[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }()

    @Test("every file the recipe names exists, and the folder holds no Swift file it leaves out")
    func filesExist() throws {
        let named = try NSRegularExpression(pattern: "`(Sources/[A-Za-z0-9_/]+\\.swift)`")
        let files = Set(named.matches(in: Self.recipe, range: NSRange(Self.recipe.startIndex..., in: Self.recipe)).compactMap {
            Range($0.range(at: 1), in: Self.recipe).map { String(Self.recipe[$0]) }
        })
        #expect(files.count >= 4, "the recipe names \(files.sorted())")
        for f in files { #expect(FileManager.default.fileExists(atPath: Repo.root + "/" + f), "\(f) does not exist") }
        let folder = "Sources/IsletDaemon/Host"
        let inFolder = DocsMatchCodeTests.files(under: folder, ending: ".swift").map { folder + "/" + ($0.split(separator: "/").last.map(String.init) ?? "") }
        #expect(Set(inFolder).subtracting(files).isEmpty, "the recipe leaves out \(Set(inFolder).subtracting(files).sorted())")
    }

    @Test("the recipe's registry line is in PartRegistry, and the types it names are the folder's")
    func registryLine() throws {
        let blocks = Self.recipe.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        let line = try #require(blocks.first?.trimmingCharacters(in: .whitespacesAndNewlines))
        let registry = DocsMatchCodeTests.text(Repo.root + "/Sources/IsletDaemon/PartRegistry.swift")
        #expect(registry.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == line }, "PartRegistry.swift has no line \(line)")
        let folder = DocsMatchCodeTests.files(under: "Sources/IsletDaemon/Host", ending: ".swift").map(DocsMatchCodeTests.text).joined()
        for type in ["HostSettings", "HostReport"] {
            #expect(line.contains(type) && (folder.contains("struct \(type)") || folder.contains("class \(type)")), "\(type)")
        }
    }
}
