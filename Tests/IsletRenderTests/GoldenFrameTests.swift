import Testing
import IsletCore
@testable import IsletRender

/// Golden frames: plain PBM files a reviewer reads in a diff. Every fixture was looked at
/// (as PNG, and in the docs/gallery sheets built from the same requests) before it was
/// accepted; the expected pixels are a design decision, not whatever the code printed.
struct GoldenFrameTests {
    static let states: [(String, [String])] = [
        ("running", ["--state", "running", "--duration", "1200", "--remaining", "754", "--cycle", "2", "--cycles", "3"]),
        ("paused", ["--state", "paused", "--duration", "1200", "--remaining", "754", "--cycle", "2", "--cycles", "3"]),
        ("cycle-end", ["--state", "cycle-end", "--duration", "1200", "--cycle", "2", "--cycles", "3"]),
        ("complete", ["--state", "complete", "--duration", "1200", "--cycle", "3", "--cycles", "3"]),
        ("idle", ["--state", "idle"]),
        ("stale", ["--state", "running", "--duration", "1200", "--remaining", "754", "--cycle", "2", "--cycles", "3", "--stale"]),
        ("stopwatch-running", ["--stopwatch", "--state", "running", "--elapsed", "3725"]),
        ("stopwatch-paused", ["--stopwatch", "--state", "paused", "--elapsed", "95"]),
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var args: [String]
        var testDescription: String { name }
    }

    static let presentationCases: [Case] = {
        var all: [Case] = []
        for size in ["128x32", "128x64"] {
            for p in Presentation.allCases {
                for (s, args) in states {
                    all.append(Case(name: "\(p.rawValue)-\(s)-\(size)", args: args + ["--presentation", p.rawValue, "--size", size]))
                }
            }
        }
        return all
    }()

    static let languageCases: [Case] = {
        var all: [Case] = []
        for lang in Localization.languages {
            for p in [Presentation.expanded, .lockscreen] {
                for (s, args) in states.prefix(4) {
                    all.append(Case(name: "\(p.rawValue)-\(s)-128x64-\(lang)",
                                    args: args + ["--presentation", p.rawValue, "--size", "128x64", "--language", lang]))
                }
            }
        }
        return all
    }()

    @Test(arguments: presentationCases + languageCases)
    func matchesFixture(_ c: Case) throws {
        let got = try frame(c.args)
        let name = c.name + ".pbm"
        if Fixtures.updating {
            try ImageFile.write(got, to: Fixtures.directory() + "/" + name)
            return
        }
        let text = try #require(Fixtures.read(name), "missing fixture \(name): run with ISLET_UPDATE_FIXTURES=1 and review it")
        let want = try #require(ImageFile.parsePBM(text))
        if got != want {
            let diff = zip(want.asciiRows, got.asciiRows).enumerated().filter { $0.element.0 != $0.element.1 }
                .prefix(6).map { "row \($0.offset):\n want \($0.element.0)\n got  \($0.element.1)" }
            Issue.record("\(name) differs:\n\(diff.joined(separator: "\n"))")
        }
    }
}
