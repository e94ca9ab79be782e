import Testing
import IsletCore
import IsletInput
import IsletProtocol
import IsletConfig
import IsletMQTT
import IsletTestSupport

/// The verb table (`Verb`) against what does not come from it: the documents people read and the
/// parsers that take requests and config values. Here because this target sees all of them.
@Suite struct VerbTableTests {
    private static let root: String = {
        // …/Tests/IsletConfigTests/VerbTableTests.swift → the package root.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    private func document(_ name: String) throws -> String {
        try #require(readTextFile(Self.root + "/" + name), "cannot read \(name)")
    }

    /// The names in backticks in `text`, outside parentheses (those explain, they do not list).
    private func listed(_ text: Substring) -> [String] {
        var names: [String] = []
        var depth = 0
        var current: String?
        for c in text {
            if var name = current {
                if c == "`" { names.append(name); current = nil } else { name.append(c); current = name }
                continue
            }
            switch c {
            case "(": depth += 1
            case ")": depth -= 1
            case "`" where depth == 0: current = ""
            default: break
            }
        }
        return names
    }

    /// The text after `start` up to the first of `end` after it.
    private func span(_ text: String, from start: String, to end: String) throws -> Substring {
        let from = try #require(text.range(of: start), "\"\(start)\" is not in the document").upperBound
        let to = try #require(text[from...].range(of: end), "\"\(end)\" does not follow \"\(start)\"").lowerBound
        return text[from..<to]
    }

    @Test func everyVerbIsAnOpTheREADMEDocuments() throws {
        // README.md, "Requests": | op | fields | does |, one row per op or group of ops.
        let table = try span(try document("README.md"), from: "| op | fields | does |\n|---|---|---|\n", to: "\n\n")
        var documented: [String: String] = [:]
        for row in table.split(separator: "\n") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            try #require(cells.count >= 4, "\(row)")
            for op in listed(cells[1]) { documented[op] = cells[2].split(separator: " ").joined(separator: " ") }
        }
        for verb in Verb.allCases {
            let request = try ControlRequest.parse(Array(#"{"op":"\#(verb.rawValue)"}"#.utf8))
            #expect(request.op == .verb(verb))
            let fields = try #require(documented[verb.rawValue], "README.md's request table has no \(verb)")
            // A verb that takes nothing is documented with no fields, and the other way round.
            #expect((fields == "none") == (verb.argument == .none), "\(verb): \(fields)")
        }
        // Every documented op is one the protocol takes.
        for op in documented.keys { #expect(ControlOp(rawValue: op) != nil, "\(op)") }
    }

    @Test func theButtonActionsAreTheDocumentedOnes() throws {
        // docs/HARDWARE.md, [buttons]: "**Actions** are `toggle` (…), `pause`, … and `expand` (…)."
        let sentence = try span(try document("docs/HARDWARE.md"), from: "**Actions** are ", to: ". ")
        let documented = listed(sentence)
        #expect(documented == Verb.buttonActions.map(\.rawValue))
        // The config takes exactly those, and its error lists them in that order.
        for verb in Verb.allCases {
            var c = ButtonConfig()
            do {
                try c.set(section: "buttons", key: "on.toggle.press", value: verb.rawValue)
                #expect(documented.contains(verb.rawValue), "the config binds \(verb), which the docs do not list")
            } catch {
                #expect(!documented.contains(verb.rawValue), "the config refuses \(verb): \(error)")
                #expect(error.accepted == documented + ["ACTION@TIMER", "none"])
            }
        }
    }

    @Test func homeAssistantGetsTheDocumentedButtons() throws {
        // README.md, Home Assistant: "… `meditation paused remaining`; buttons `pause`, …; and a number …".
        let documented = listed(try span(try document("README.md"), from: "`meditation paused remaining`; buttons ", to: "; and a number"))
        let discovery = HomeAssistantDiscovery(prefix: "homeassistant", node: "n", topics: MQTTTopics(prefix: "islet/n"),
                                               device: .init(name: "Islet", model: "m", version: "1"), defaultMinutes: 20)
        let buttons = discovery.announcements(timer: "meditation").filter { $0.topic.contains("/button/") }
        // Each button presses with a request line the protocol takes.
        let ops = try buttons.map { a in
            guard case .object(let o) = try StrictJSON.parse(a.payload), case .string(let press)? = o["payload_press"] else {
                throw ProtocolError("no_press", "\(a.topic) has no payload_press")
            }
            return try ControlRequest.parse(Array(press.utf8)).op.rawValue
        }
        #expect(documented == ops)
        #expect(ops == Verb.allCases.filter(\.hasHomeAssistantButton).map(\.rawValue))
    }
}
